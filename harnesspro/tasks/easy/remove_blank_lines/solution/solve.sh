#!/bin/bash
# Reference solution.
grep -v '^$' /workspace/notes.txt > /workspace/compact.txt
