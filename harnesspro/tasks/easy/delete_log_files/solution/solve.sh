#!/bin/bash
# Reference solution.
rm /workspace/app/*.log
