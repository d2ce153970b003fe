#!/bin/bash
# Reference solution.
tail -n +2 /workspace/people.csv | cut -d, -f2 > /workspace/emails.txt
