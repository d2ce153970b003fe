#!/bin/bash
# Reference solution.
cd /workspace/photos && for f in *.jpeg; do mv "$f" "${f%.jpeg}.jpg"; done
