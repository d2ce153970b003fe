#!/bin/bash
# Reference solution.
printf 'echo $#\n' > /workspace/nargs.sh
