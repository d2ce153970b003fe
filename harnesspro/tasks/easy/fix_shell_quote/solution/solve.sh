#!/bin/bash
# Reference solution.
sed -i 's/\$1$/$1"/' /workspace/hello.sh
