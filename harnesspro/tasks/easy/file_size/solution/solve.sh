#!/bin/bash
# Reference solution.
wc -c < /workspace/blob.dat > /workspace/size.txt
