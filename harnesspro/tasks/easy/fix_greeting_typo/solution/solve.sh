#!/bin/bash
# Reference solution.
sed -i 's/mesage/message/' /workspace/hello.py
