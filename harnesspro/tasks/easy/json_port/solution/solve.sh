#!/bin/bash
# Reference solution.
python3 -c 'import json;print(json.load(open("/workspace/config.json"))["port"])' > /workspace/port.txt
