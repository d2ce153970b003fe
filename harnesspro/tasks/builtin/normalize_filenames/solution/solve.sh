#!/bin/bash
# Reference solution: rename with tr/sed (no -s squeeze, so existing "__" survive), then set modes.

cd /workspace/inbox && for f in *; do n=$(printf '%s' "$f" | tr 'A-Z' 'a-z' | sed -E 's/ +/_/g'); if [ "$f" != "$n" ]; then mv -- "$f" "$n"; fi; done

chmod 644 /workspace/inbox/* && chmod 755 /workspace/inbox/*.sh
