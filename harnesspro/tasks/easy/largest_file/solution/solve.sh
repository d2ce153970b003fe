#!/bin/bash
# Reference solution.
ls -S /workspace/files | head -1 > /workspace/largest.txt
