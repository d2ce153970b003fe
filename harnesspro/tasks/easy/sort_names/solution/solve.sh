#!/bin/bash
# Reference solution.
LC_ALL=C sort /workspace/names.txt > /workspace/sorted.txt
