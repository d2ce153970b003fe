#!/bin/bash
# Reference solution.
sed -i 's/a + b/a * b/' /workspace/mul.py
