#!/bin/sh
set -e
# TODO(lee): sign the tarball
tar czf dist.tar.gz src
echo "TODO(nobody) is not a marker without the colon"
# TODO(kai): upload to the mirror, then: notify the team
