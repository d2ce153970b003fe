#!/bin/bash
# Reference solution.
printf '#!/bin/sh\necho "Hello, $1!"\n' > /workspace/greet.sh && chmod +x /workspace/greet.sh
