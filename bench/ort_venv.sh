#!/bin/sh
# bench/ort_venv.sh — the Python environment of bench/bert.sh's onnxruntime peer: a venv at
# ${ORT_VENV:-build/ortvenv} over /usr/bin/python3's packages (--system-site-packages), with pip's
# onnxruntime and onnx. onnx >= 1.17 needs NumPy 2 (ml_dtypes) while Debian's torch 1.13 needs
# NumPy 1: the venv gets its own NumPy 2 (--ignore-installed), so the graph is exported by
# /usr/bin/python3 (torch, NumPy 1) and run by the venv's Python, which never imports torch.
#   sh bench/ort_venv.sh        (needs PyPI; idempotent)
set -eu
V=${ORT_VENV:-build/ortvenv}
if "$V/bin/python" -c 'import onnxruntime, onnx, numpy; from onnxruntime.transformers import optimizer' 2>/dev/null; then
    echo "$V: ready"; exit 0
fi
mkdir -p "$(dirname "$V")"
/usr/bin/python3 -m venv --system-site-packages "$V"
"$V/bin/pip" install -q onnxruntime onnx
"$V/bin/pip" install -q --ignore-installed "numpy>=2"
"$V/bin/python" -c 'import onnxruntime, onnx, numpy; print("onnxruntime", onnxruntime.__version__, "onnx", onnx.__version__, "numpy", numpy.__version__)'
