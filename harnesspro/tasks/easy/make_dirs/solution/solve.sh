#!/bin/bash
# Reference solution.
mkdir -p /workspace/project/src /workspace/project/tests /workspace/project/docs && touch /workspace/project/README.md
