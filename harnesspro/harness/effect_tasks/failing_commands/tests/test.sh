#!/bin/bash
if [ "$(cat /workspace/check.txt 2>/dev/null)" = "check passed" ]; then
  echo 1 > /logs/verifier/reward.txt; exit 0
fi
echo 0 > /logs/verifier/reward.txt; exit 1
