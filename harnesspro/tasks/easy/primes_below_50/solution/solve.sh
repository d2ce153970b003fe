#!/bin/bash
# Reference solution.
python3 -c 'print(*[p for p in range(2,50) if all(p%d for d in range(2,p))], sep="\n")' > /workspace/primes.txt
