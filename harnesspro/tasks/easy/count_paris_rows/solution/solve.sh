#!/bin/bash
# Reference solution.
grep -c ',Paris$' /workspace/people.csv > /workspace/paris.txt
