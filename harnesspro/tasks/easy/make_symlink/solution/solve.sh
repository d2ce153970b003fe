#!/bin/bash
# Reference solution.
ln -s /workspace/releases/v2 /workspace/current
