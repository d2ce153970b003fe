#!/bin/bash
# Reference solution.
rm /workspace/scratch/*.tmp
