#!/bin/bash
# Reference solution.
mkdir -p /workspace/logs && mv /workspace/in/*.log /workspace/logs/
