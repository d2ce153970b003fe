#!/bin/bash
# Verifier: compares /workspace/toc.md with the expected table of contents.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
expected = (
    '- [Tidyclock Field Guide](#tidyclock-field-guide)\n'
    '  - [Getting started](#getting-started)\n'
    '    - [Install](#install)\n'
    '    - [First run](#first-run)\n'
    '    - [Options](#options)\n'
    '  - [Step 2: Configure API Keys](#step-2-configure-api-keys)\n'
    '    - [The `--dry-run` flag](#the---dry-run-flag)\n'
    '    - [Options](#options-1)\n'
    '  - [Spaced   out](#spaced---out)\n'
    '  - [Tips & Tricks](#tips--tricks)\n'
    "  - [FAQ: What's new in v2.0?](#faq-whats-new-in-v20)\n"
    '    - [Why did my clock jump?](#why-did-my-clock-jump)\n'
    '    - [Options](#options-2)\n'
    '  - [Getting Started](#getting-started-1)\n'
    '- [Appendix](#appendix)\n'
    '  - [Glossary](#glossary)\n'
    '  - [Changelog (2024-2025)](#changelog-2024-2025)\n'
    '    - [2.0.1 -- bug fixes](#201----bug-fixes)\n'
    '    - [2.0.0 -- first public release](#200----first-public-release)\n'
)
try:
    got = open("/workspace/toc.md").read()
except OSError as e:
    print("FAIL: cannot read /workspace/toc.md:", e)
    sys.exit(1)
if got != expected:
    g, e = got.splitlines(True), expected.splitlines(True)
    for i in range(max(len(g), len(e))):
        if i >= len(g) or i >= len(e) or g[i] != e[i]:
            print("FAIL: line %d: expected %r, got %r" % (i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
            break
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
