#!/bin/bash
# Reference solution.
chmod +x /workspace/run.sh
