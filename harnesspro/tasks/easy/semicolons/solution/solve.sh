#!/bin/bash
# Reference solution.
sed -i 's/,/;/g' /workspace/data.csv
