#!/bin/bash
if ! grep -q '^mode=fast' /workspace/config.ini 2>/dev/null; then
  echo "error: /workspace/config.ini has no [main] mode=fast" >&2
  exit 1
fi
echo "check passed"
