#!/bin/bash
# Reference solution.
sed -i 's/cat/dog/g' /workspace/pets.txt
