#!/bin/bash
if [ "$(cat /workspace/errors.txt 2>/dev/null)" = "12" ]; then
  echo 1 > /logs/verifier/reward.txt; exit 0
fi
echo 0 > /logs/verifier/reward.txt; exit 1
