#!/bin/bash
# Reference solution: write the script, then produce the sample report with it.

cat > /workspace/wordfreq.py <<'PY'
import collections
import re
import sys
def main(argv):
    path = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 10
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        print("error: cannot read %s" % path, file=sys.stderr)
        return 2
    counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    for word, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]:
        print("%s\t%d" % (word, count))
    return 0
if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY

python3 /workspace/wordfreq.py /workspace/sample.txt 5 > /workspace/sample_top5.txt
