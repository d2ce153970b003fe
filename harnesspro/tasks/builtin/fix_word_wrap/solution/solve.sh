#!/bin/bash
# Reference solution: allow lines of exactly WIDTH characters, and split paragraphs on runs of blank lines.

sed -i 's/elif len(current) + 1 + len(word) < width:/elif len(current) + 1 + len(word) <= width:/' /workspace/wrapper/fill.py

python3 - <<'PY'
path = "/workspace/wrapper/cli.py"
src = open(path).read()
old = '    return [block.split() for block in text.split("\\n\\n")]\n'
new = ('    blocks, current = [], []\n'
       '    for line in text.split("\\n"):\n'
       '        if line.strip():\n'
       '            current.extend(line.split())\n'
       '        elif current:\n'
       '            blocks.append(current)\n'
       '            current = []\n'
       '    if current:\n'
       '        blocks.append(current)\n'
       '    return blocks\n')
open(path, "w").write(src.replace(old, new))
PY

python3 /workspace/wrapper/cli.py 40 < /workspace/wrapper/notes.txt > /workspace/notes_40.txt
