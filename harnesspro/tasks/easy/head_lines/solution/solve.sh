#!/bin/bash
# Reference solution.
head -n 3 /workspace/story.txt > /workspace/head.txt
