#!/bin/bash
# Reference solution: commit everything first, then write .gitignore and untrack with git rm --cached.

cd /workspace/app && git init -q -b main && git config user.name agent && git config user.email agent@example.com && if ! git rev-parse -q --verify HEAD >/dev/null; then git add -A && git commit -q -m 'Import project'; fi

cd /workspace/app && printf 'out/\n*.log\n*.pyc\n' > .gitignore && if [ "$(git rev-list --count HEAD)" = 1 ]; then git rm -r -q --cached . && git add -A && git commit -q -m 'Stop tracking generated files'; fi
