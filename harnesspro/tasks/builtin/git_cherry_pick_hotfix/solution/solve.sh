#!/bin/bash
# Reference solution: build main, branch the release line from the first commit, cherry-pick the fix with -x.

cd /workspace/lib && git init -q -b main && git config user.name agent && git config user.email agent@example.com && if ! git rev-parse -q --verify HEAD >/dev/null; then git add parser.py README.md && git commit -q -m 'Initial version' && git tag v1.0 && git branch release/1.x; fi

cd /workspace/lib && if [ "$(git rev-list --count main)" = 1 ]; then cp /workspace/patches/export.py export.py && git add export.py && git commit -q -m 'Add CSV export' && cp /workspace/patches/parser_fixed.py parser.py && git commit -q -am 'Fix parser crash on empty input'; fi

cd /workspace/lib && if [ "$(git rev-list --count release/1.x)" = 1 ]; then git checkout -q release/1.x && git cherry-pick -x main >/dev/null && git tag -a v1.0.1 -m 'Hotfix release' && git checkout -q main; fi
