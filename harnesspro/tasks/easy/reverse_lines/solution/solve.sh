#!/bin/bash
# Reference solution.
tac /workspace/list.txt > /workspace/reversed.txt
