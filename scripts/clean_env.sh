#!/bin/sh
# Run a command as on a machine that has never seen this project: a fresh HOME, tool cache and
# pip cache (empty temporary folders), a PATH of the OS's own folders only (no pyenv shims, no
# ~/.local/bin: a pytest or anything else installed there by hand cannot be found), and none
# of the caller's variables but the package registries' settings. The interpreter that makes
# the project's venv is the one `python3` names now, passed on as PYTHON.
# Usage: sh scripts/clean_env.sh COMMAND [ARGS...]
set -eu
PYTHON=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
FRESH=$(mktemp -d "${TMPDIR:-/tmp}/hp-clean-XXXXXX")
mkdir -p "$FRESH/home" "$FRESH/cache" "$FRESH/pip"
# What reaches the registries (an index, a proxy, certificates) is the machine's, not a tool.
KEEP=$(env | grep -E '^(PIP_[A-Z_]+|UV_INDEX_URL|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|CI|TEST_WORKERS|HARNESSPRO_WHEELS)=' | grep -v '^PIP_CACHE_DIR=' || true)
echo "clean environment: HOME=$FRESH/home, HARNESSPRO_CACHE=$FRESH/cache, PIP_CACHE_DIR=$FRESH/pip"
# shellcheck disable=SC2086 # one NAME=value word per kept variable
set +e
(IFS='
'; exec env -i $KEEP \
    HOME="$FRESH/home" HARNESSPRO_CACHE="$FRESH/cache" PIP_CACHE_DIR="$FRESH/pip" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" PYTHON="$PYTHON" "$@")
status=$?
rm -rf "$FRESH" 2>/dev/null || true
exit $status
