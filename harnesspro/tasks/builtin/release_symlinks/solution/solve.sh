#!/bin/bash
# Reference solution: pick the version with a numeric sort, then chmod and link with find/xargs.

cd /workspace && v=$(ls releases | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1) && ln -sfn "releases/$v" current

cd /workspace/current/bin && find . -maxdepth 1 -type f -print0 | xargs -0 chmod 644 && for f in *; do if [ -f "$f" ] && [ "$(head -c 2 "$f")" = '#!' ]; then chmod 755 "$f"; fi; done

mkdir -p /workspace/bin && cd /workspace/current/bin && find . -maxdepth 1 -type f -perm -u+x -printf '%f\n' | xargs -I{} ln -sfn ../current/bin/{} /workspace/bin/{}
