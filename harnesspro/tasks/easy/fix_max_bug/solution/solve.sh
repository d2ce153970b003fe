#!/bin/bash
# Reference solution.
sed -i 's/min(/max(/' /workspace/biggest.py
