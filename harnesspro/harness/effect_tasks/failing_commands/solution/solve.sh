#!/bin/bash

bash /workspace/check.sh

cat /workspace/config.ini

printf '[main]\nmode=fast\n' > /workspace/config.ini

bash /workspace/check.sh > /workspace/check.txt

cat /workspace/check.txt
