#!/bin/bash
# Reference solution: replay the snapshots as commits, then git revert the second one and tag the result.

mkdir -p /workspace/service && cd /workspace/service && git init -q -b main && git config user.name agent && git config user.email agent@example.com && if ! git rev-parse -q --verify HEAD >/dev/null; then cp /workspace/snapshots/1/* . && git add -A && git commit -q -m 'Add service'; fi

cd /workspace/service && if [ "$(git rev-list --count HEAD)" = 1 ]; then cp /workspace/snapshots/2/* . && git add -A && git commit -q -m 'Raise timeout'; fi

cd /workspace/service && if [ "$(git rev-list --count HEAD)" = 2 ]; then cp /workspace/snapshots/3/* . && git add -A && git commit -q -m 'Add retries'; fi

cd /workspace/service && if [ "$(git rev-list --count HEAD)" = 3 ]; then git revert --no-edit HEAD~1 >/dev/null; fi && git tag -f -a v1.1 -m 'Release 1.1' HEAD >/dev/null
