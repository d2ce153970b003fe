#!/bin/bash
# Reference solution.
wc -w < /workspace/story.txt > /workspace/words.txt
