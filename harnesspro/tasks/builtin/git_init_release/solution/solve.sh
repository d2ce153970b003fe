#!/bin/bash
# Reference solution: init on main with a local identity, ignore *.tmp, commit once, annotated tag.

cd /workspace/proj && git init -q -b main && git config user.name 'Release Bot' && git config user.email 'bot@tidyclock.dev'

printf '*.tmp\n' > /workspace/proj/.gitignore

cd /workspace/proj && if ! git rev-parse -q --verify HEAD >/dev/null; then git add -A && git commit -q -m 'Initial import'; fi

cd /workspace/proj && git tag -f -a v0.1.0 -m 'First release'
