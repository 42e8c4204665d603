#!/usr/bin/env bash
# Downloads the newest CCCL (CUB, Thrust, libcu++) headers as published in the nvidia-cuda-cccl
# wheel on PyPI and unpacks them into .cccl/ (git-ignored), for a second build of the benchmarks:
#   bash scripts/fetch_cccl.sh [VERSION]            # e.g. 13.3.5.0.6; default: the newest
#   cmake -S . -B build-cccl -DTCU_CCCL_ROOT=$PWD/.cccl ...
# Needs python3 -m pip and network access. Nothing is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
spec="nvidia-cuda-cccl${1:+==$1}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$tmp" "$spec"
whl=("$tmp"/nvidia_cuda_cccl-*.whl)
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "${whl[0]}" "$tmp/x"
# The wheel keeps the headers in nvidia/cu13/include/cccl and the CMake package in
# nvidia/cu13/cccl/lib/cmake, where the package does not find them: lay them out as an install
# prefix (include/, lib/cmake/) instead.
rm -rf .cccl
mkdir -p .cccl/lib
mv "$tmp/x/nvidia/cu13/include/cccl" .cccl/include
mv "$tmp/x/nvidia/cu13/cccl/lib/cmake" .cccl/lib/cmake
echo "$(basename "${whl[0]}")" > .cccl/WHEEL
grep -qx '/.cccl/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.cccl/' >> .git/info/exclude; }
[ -f .cccl/include/cub/version.cuh ] && [ -d .cccl/lib/cmake/cccl ] || { echo "fetch_cccl.sh: unexpected wheel layout" >&2; exit 1; }
echo "fetch_cccl.sh: $(cat .cccl/WHEEL) unpacked; configure with -DTCU_CCCL_ROOT=$PWD/.cccl"
