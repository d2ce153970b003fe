#!/bin/bash
# Reference solution.
ls /workspace/data/*.txt | wc -l > /workspace/txt_count.txt
