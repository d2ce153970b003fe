#!/bin/bash
# Reference solution: each step is guarded so that re-running it does not add commits.

cd /workspace/proj && git init -q -b main && git config user.name agent && git config user.email agent@example.com && if ! git rev-parse -q --verify HEAD >/dev/null; then git add calc.py README.md && git commit -q -m 'Add calculator'; fi

cd /workspace/proj && if ! git rev-parse -q --verify refs/heads/feature/power >/dev/null; then git checkout -q -b feature/power && cp /workspace/changes/calc_v2.py calc.py && git commit -q -am 'Add power function' && git checkout -q main; fi

cd /workspace/proj && if ! git log --format=%s main | grep -qx 'Add changelog'; then cp /workspace/changes/CHANGELOG.md CHANGELOG.md && git add CHANGELOG.md && git commit -q -m 'Add changelog'; fi

cd /workspace/proj && if ! git log --format=%s main | grep -qx 'Merge feature/power'; then git merge -q --no-ff -m 'Merge feature/power' feature/power; fi

cd /workspace/proj && git tag -f v1.0 main
