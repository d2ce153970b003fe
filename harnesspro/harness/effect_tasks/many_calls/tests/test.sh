#!/bin/bash
if [ "$(cat /workspace/parts/total.txt 2>/dev/null)" = "78" ]; then
  echo 1 > /logs/verifier/reward.txt; exit 0
fi
echo 0 > /logs/verifier/reward.txt; exit 1
