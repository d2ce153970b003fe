#!/bin/bash
# Reference solution.
seq 2 2 20 > /workspace/evens.txt
