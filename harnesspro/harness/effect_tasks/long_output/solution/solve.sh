#!/bin/bash

cat /workspace/app.log

grep -c ERROR /workspace/app.log > /workspace/errors.txt

cat /workspace/errors.txt
