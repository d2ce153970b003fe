#!/bin/bash
# Verifier: compares the TODO index and the per-owner counts with the expected content.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
EXPECTED = {
    "/workspace/todos.tsv": (
        "ana\tweb/main.js:13\tdebounce the input handler\n"
        "ana\tweb/main.js:107\thandle the empty list: show a placeholder\n"
        "kai\tserver/app.py:23\tadd the git revision\n"
        "kai\ttools/release.sh:6\tupload to the mirror, then: notify the team\n"
        "kai\tweb/main.js:38\tremove this console.log before release\n"
        "lee\tserver/app.py:12\treturn a 400 instead of raising\n"
        "lee\tserver/db.py:5\tpool connections\n"
        "lee\ttools/release.sh:3\tsign the tarball\n"
        "maria\tserver/app.py:4\tread the port from the environment\n"
        "maria\tserver/db.py:11\tadd an index on users.name\n"
    ),
    "/workspace/todo_counts.txt": "ana 2\nkai 3\nlee 3\nmaria 2\n",
}
ok = True
for path, expected in EXPECTED.items():
    try:
        got = open(path).read()
    except OSError as e:
        print("FAIL: cannot read %s: %s" % (path, e))
        ok = False
        continue
    if got != expected:
        print("FAIL: unexpected content of", path)
        print("expected:", repr(expected))
        print("got:     ", repr(got))
        ok = False
sys.exit(0 if ok else 1)
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
