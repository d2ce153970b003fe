#!/bin/bash
# Reference solution.
rm -rf /workspace/cache
