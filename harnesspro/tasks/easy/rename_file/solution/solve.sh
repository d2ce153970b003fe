#!/bin/bash
# Reference solution.
mv /workspace/draft.txt /workspace/final.txt
