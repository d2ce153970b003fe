#!/bin/sh
# Install llama-cpp-python (the tests' local OpenAI-compatible server) as a portable build.
# By default it compiles llama.cpp for the build machine's CPU (GGML_NATIVE); on a VM that
# advertises instructions it does not execute (seen here: AMX and AVX-512 flags), the
# server then dies with "invalid opcode" on its first request. So the wheel is built once
# without native tuning and kept under ~/.cache/harnesspro/wheels, outside pip's own cache
# (which would hand back a native wheel built earlier).
set -e
PY=${1:-.venv/bin/python}
SPEC='llama-cpp-python>=0.3'
if [ "$(uname -m)" = "x86_64" ]; then
    FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
else
    FLAGS="-DGGML_NATIVE=OFF"
fi
DIR="${HOME}/.cache/harnesspro/wheels/llama-portable-$(echo "$FLAGS" | cksum | cut -d' ' -f1)"
if ! ls "$DIR"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python without CPU-specific tuning (about 5 minutes, once) ..."
    CMAKE_ARGS="$FLAGS" "$PY" -m pip wheel --quiet --no-cache-dir --no-deps -w "$DIR" "$SPEC"
fi
"$PY" -m pip install --quiet --no-deps "$(ls "$DIR"/llama_cpp_python-*.whl | tail -1)"
