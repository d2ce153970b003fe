#!/bin/bash
# Reference solution.
sed -i 's/n \* 2/n * n/' /workspace/square.py
