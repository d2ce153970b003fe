#!/bin/bash
# Reference solution.
cd /workspace/site && git init -q
