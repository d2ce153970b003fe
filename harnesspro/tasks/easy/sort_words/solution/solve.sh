#!/bin/bash
# Reference solution.
sort /workspace/words.txt > /workspace/sorted_words.txt
