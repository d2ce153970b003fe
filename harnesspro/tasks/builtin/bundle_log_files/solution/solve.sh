#!/bin/bash
# Reference solution: build the sorted manifest, archive exactly those paths, lock it down, delete originals.

mkdir -p /workspace/backup && cd /workspace/reports && find . -type f -name '*.log' | sed 's|^\./||' | LC_ALL=C sort > /workspace/backup/manifest.txt

cd /workspace/reports && tar -czf /workspace/backup/logs.tar.gz --no-recursion -T /workspace/backup/manifest.txt

chmod 600 /workspace/backup/logs.tar.gz

find /workspace/reports -type f -name '*.log' -delete
