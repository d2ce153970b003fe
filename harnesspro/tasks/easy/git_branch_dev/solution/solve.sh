#!/bin/bash
# Reference solution.
cd /workspace/app && git init -q && git add -A && git -c user.name=a -c user.email=a@b commit -qm init && git branch dev
