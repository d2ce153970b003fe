#!/bin/bash
# Reference solution.
sed -i 's/age > 18/age >= 18/' /workspace/is_adult.py
