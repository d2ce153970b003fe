#!/bin/bash
# Reference solution.
grep ERROR /workspace/app.log > /workspace/errors.txt
