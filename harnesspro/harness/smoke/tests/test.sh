#!/bin/bash
if [ "$(cat /workspace/smoke.txt 2>/dev/null)" = "ok" ]; then
  echo 1 > /logs/verifier/reward.txt; exit 0
fi
echo 0 > /logs/verifier/reward.txt; exit 1
