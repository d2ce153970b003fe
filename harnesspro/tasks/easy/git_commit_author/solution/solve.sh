#!/bin/bash
# Reference solution.
cd /workspace/notes && git init -q && git add -A && git -c user.name='Ada Lovelace' -c user.email=ada@example.com commit -qm notes
