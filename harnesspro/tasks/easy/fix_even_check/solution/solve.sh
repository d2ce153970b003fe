#!/bin/bash
# Reference solution.
sed -i 's/== 1/== 0/' /workspace/even.py
