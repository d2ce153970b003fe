#!/bin/bash
# Reference solution.
sed -i 's/colour/color/g' /workspace/essay.txt
