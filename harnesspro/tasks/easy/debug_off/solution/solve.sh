#!/bin/bash
# Reference solution.
sed -i 's/^debug=true$/debug=false/' /workspace/app.conf
