#!/usr/bin/env bash
# Builds serving_check against the TensorFlow pip wheel (headers + libtensorflow_cc.so.2 and
# libtensorflow_framework.so.2). Usage: tools/serving_check/build.sh [OUTPUT_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/serving_check}"
python="${PYTHON:-python}"
command -v "${CXX:-g++}" >/dev/null || { echo "build.sh: ${CXX:-g++} not found; install g++ (apt-get install -y g++)" >&2; exit 3; }
read -r include lib < <(TF_CPP_MIN_LOG_LEVEL=3 "$python" -c \
  "import tensorflow as tf; print(tf.sysconfig.get_include(), tf.sysconfig.get_lib())" 2>/dev/null)
for so in libtensorflow_cc.so.2 libtensorflow_framework.so.2; do
  [[ -f "$lib/$so" ]] || { echo "build.sh: $lib/$so missing from the TensorFlow wheel" >&2; exit 3; }
done
"${CXX:-g++}" -std=c++17 -O1 -Wno-deprecated-declarations -D_GLIBCXX_USE_CXX11_ABI=1 -DEIGEN_MAX_ALIGN_BYTES=64 \
  -I"$include" "$here/serving_check.cc" -o "$out" \
  -L"$lib" -l:libtensorflow_cc.so.2 -l:libtensorflow_framework.so.2 -Wl,-rpath,"$lib"
echo "$out"
