#!/bin/sh
# Install llama-cpp-python (the tests' local OpenAI-compatible server) as a portable build.
# By default it compiles llama.cpp for the build machine's CPU (GGML_NATIVE); on a VM that
# advertises instructions it does not execute (seen here: AMX and AVX-512 flags), the
# server then dies with "invalid opcode" on its first request. So the wheel is built once
# without native tuning and kept in a machine-wide wheel cache, outside pip's own cache (which
# would hand back a native wheel built earlier) and outside HOME (CI runs with a fresh HOME):
# $HARNESSPRO_WHEELS, else /var/cache/harnesspro/wheels when writable, else ~/.cache.
set -e
PY=${1:-.venv/bin/python}
SPEC='llama-cpp-python>=0.3'
if [ "$(uname -m)" = "x86_64" ]; then
    FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
else
    FLAGS="-DGGML_NATIVE=OFF"
fi
if [ -n "${HARNESSPRO_WHEELS:-}" ]; then
    CACHE="$HARNESSPRO_WHEELS"
elif mkdir -p /var/cache/harnesspro/wheels 2>/dev/null && [ -w /var/cache/harnesspro/wheels ]; then
    CACHE=/var/cache/harnesspro/wheels
else
    CACHE="${HOME}/.cache/harnesspro/wheels"
fi
DIR="$CACHE/llama-portable-$(echo "$FLAGS" | cksum | cut -d' ' -f1)"
if ! ls "$DIR"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python without CPU-specific tuning (about 5 minutes, once) ..."
    CMAKE_ARGS="$FLAGS" "$PY" -m pip wheel --quiet --no-cache-dir --no-deps -w "$DIR" "$SPEC"
fi
"$PY" -m pip install --quiet --no-deps "$(ls "$DIR"/llama_cpp_python-*.whl | tail -1)"
