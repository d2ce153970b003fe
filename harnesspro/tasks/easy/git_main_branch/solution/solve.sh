#!/bin/bash
# Reference solution.
cd /workspace/web && git init -q -b main && git add -A && git -c user.name=a -c user.email=a@b commit -qm init
