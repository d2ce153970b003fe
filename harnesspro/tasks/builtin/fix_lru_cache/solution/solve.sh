#!/bin/bash
# Reference solution: get must refresh recency, an update must not evict, and delete must forget the key's position.

python3 - <<'PY'
path = "/workspace/kvcache/lru.py"
src = open(path).read()
src = src.replace("""            self.hits += 1
            return self.data[key]""", """            self.hits += 1
            self._touch(key)
            return self.data[key]""")
src = src.replace("        if len(self.data) >= self.capacity:\n", "        if key not in self.data and len(self.data) >= self.capacity:\n")
src = src.replace("""            del self.data[key]
            return True""", """            del self.data[key]
            self.order.remove(key)
            return True""")
open(path, "w").write(src)
PY

python3 /workspace/kvcache/cli.py 3 < /workspace/kvcache/session.txt > /workspace/session_out.txt
