#!/bin/bash
# Reference solution.
cd /workspace/proj && git init -q && git add a.txt && git -c user.name=a -c user.email=a@b commit -qm 'add a' && git add b.txt && git -c user.name=a -c user.email=a@b commit -qm 'add b'
