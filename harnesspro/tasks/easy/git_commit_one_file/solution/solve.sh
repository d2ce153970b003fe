#!/bin/bash
# Reference solution.
cd /workspace/docs && git init -q && git add guide.md && git -c user.name=a -c user.email=a@b commit -qm 'add guide'
