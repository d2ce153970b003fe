#!/bin/bash
# Reference solution.
head -n 1 /workspace/data.csv > /workspace/header.txt
