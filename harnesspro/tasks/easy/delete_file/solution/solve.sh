#!/bin/bash
# Reference solution.
rm /workspace/old.txt
