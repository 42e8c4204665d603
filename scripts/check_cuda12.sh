#!/usr/bin/env bash
# The Jetson builds, checked on a machine without a GPU (CI runs this after its own build):
#   cuda12   CUDA 12 from Debian's packages (Debian 13 "trixie", non-free: CUDA 12.4 with
#            CCCL 2.3), the whole project built twice, for sm_72 (Jetson AGX Xavier / Xavier
#            NX with CUDA 12) and for sm_87 (Jetson Orin, JetPack 6), and each build's host tests
#   orin13   the `jetson-orin` preset (sm_87) with the CUDA 13 on PATH, and its host tests
# Every build targets one architecture, must compile without nvcc warnings, and runs the tests
# labelled `host`; GPU tests need a GPU and are the device check's business.
#
# Usage: scripts/check_cuda12.sh [cuda12|orin13|all]        (default: all)
# Environment:
#   TCU_CUDA12_ROOT    an installed CUDA 12 toolkit (bin/nvcc inside) to use instead of
#                      Debian's packages; nothing is downloaded then
#   TCU_CUDA12_SUITE   the Debian suite that has CUDA 12 in non-free (default: trixie)
#   TCU_DEBIAN_MIRROR  default: http://deb.debian.org/debian
#   TCU_JOBS           parallel build jobs (default: nproc)
#
# Debian's packages are fetched by name with apt-get, through a private apt state under
# build-cuda12/apt (the system's sources and installed packages stay as they are), and
# unpacked with dpkg-deb into a toolkit tree under build-cuda12/toolkit, laid out like
# NVIDIA's (bin, nvvm/libdevice, include, lib64). Unpacking instead of installing keeps the
# host's libraries untouched when the host is an older Debian (CI: Debian 12, whose own
# non-free section only has CUDA 11.8). Only the headers and the shared/static libraries the
# project links are unpacked from nvidia-cuda-dev.
# Exit code: 0 when every build and every host test passed.
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS="${1:-all}"
case "$PARTS" in
  cuda12|orin13|all) ;;
  -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
  *) echo "check_cuda12.sh: unknown part '$PARTS' (cuda12, orin13 or all)" >&2; exit 2 ;;
esac
JOBS="${TCU_JOBS:-$(nproc)}"
SUITE="${TCU_CUDA12_SUITE:-trixie}"
MIRROR="${TCU_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
WORK="$PWD/build-cuda12"
command -v ninja >/dev/null 2>&1 || { echo "check_cuda12.sh: ninja is needed (apt-get install ninja-build)" >&2; exit 2; }

# CUDA 12 packages: the compiler, the headers and libraries (taken apart below), the
# runtime and cuBLAS shared libraries, CCCL and the NVML header.
PACKAGES=(nvidia-cuda-toolkit nvidia-cuda-dev libcudart12 libcublas12 libcublaslt12
          libthrust-dev libcub-dev libcu++-dev libnvidia-ml-dev)
# What the project needs from nvidia-cuda-dev (the rest of its 2.5 GB is other libraries'
# static archives).
CUDA_DEV_PARTS=(./usr/include/ ./usr/lib/x86_64-linux-gnu/libcudart.so ./usr/lib/x86_64-linux-gnu/libcudart_static.a
                ./usr/lib/x86_64-linux-gnu/libcudadevrt.a ./usr/lib/x86_64-linux-gnu/libculibos.a
                ./usr/lib/x86_64-linux-gnu/libcublas.so ./usr/lib/x86_64-linux-gnu/libcublasLt.so
                ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so)

stamp() { date +%s; }
say() { echo "check_cuda12: $*"; }

# A CUDA 12 toolkit tree from Debian's packages in $1 (skipped when it is already complete).
unpack_debian_cuda12() {
  local root="$1" apt="$WORK/apt" debs="$WORK/debs" stage="$WORK/stage"
  if [ -f "$root/.complete" ] && [ -x "$root/bin/nvcc" ]; then
    say "reusing the CUDA 12 toolkit in $root"
    return
  fi
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
    { echo "check_cuda12.sh: needs apt-get and dpkg-deb (Debian/Ubuntu), or TCU_CUDA12_ROOT" >&2; exit 2; }
  rm -rf "$root" "$stage" "$debs"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$debs" "$stage"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local signed=""
  [ -f "$keyring" ] && signed="[signed-by=$keyring] "
  echo "deb ${signed}$MIRROR $SUITE main non-free" > "$apt/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
              -o APT::Sandbox::User=root)
  say "apt-get download (Debian $SUITE, non-free): ${PACKAGES[*]}"
  apt-get "${opts[@]}" -qq update
  (cd "$debs" && apt-get "${opts[@]}" -qq download "${PACKAGES[@]}")
  say "unpacking"
  local deb
  for deb in "$debs"/*.deb; do
    case "$(basename "$deb")" in
      nvidia-cuda-dev_*)
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage" "${CUDA_DEV_PARTS[@]}" ;;
      *) dpkg-deb -x "$deb" "$stage" ;;
    esac
  done
  # NVIDIA's layout: nvcc, its helpers and cicc in bin/, libdevice in nvvm/, headers in
  # include/, libraries in lib64/. Debian's /usr/bin/nvcc is a wrapper script and its
  # nvcc.profile points at /usr; the real binaries move, and the profile is written anew.
  mkdir -p "$root/bin" "$root/nvvm"
  local tk="$stage/usr/lib/nvidia-cuda-toolkit"
  mv "$tk/bin/nvcc" "$tk/bin/cicc" "$tk/bin/crt" "$root/bin/"
  local tool
  for tool in ptxas fatbinary nvlink cudafe++ bin2c cuobjdump nvdisasm nvprune cu++filt; do
    mv "$stage/usr/bin/$tool" "$root/bin/"
  done
  mv "$tk/libdevice" "$root/nvvm/libdevice"
  mv "$stage/usr/include" "$root/include"
  mv "$stage/usr/lib/x86_64-linux-gnu" "$root/lib64"
  cat > "$root/bin/nvcc.profile" <<'EOF'
TOP                = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH   += $(TOP)/lib64:
PATH              += $(_HERE_):
INCLUDES          +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES          =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS      +=
PTXAS_FLAGS       +=
EOF
  rm -rf "$stage" "$debs"
  "$root/bin/nvcc" --version | tail -n 1
  touch "$root/.complete"
}

# configure + build + host tests of one build folder; $1 = label, the rest = configure args.
FAILED=()
SUMMARY=()
build_and_test() {
  local label="$1"; shift
  local t0
  t0=$(stamp)
  say "== $label: configure"
  if ! cmake "$@"; then FAILED+=("$label (configure)"); return; fi
  local dir
  dir=$(cmake_binary_dir "$@")
  say "== $label: build"
  if ! cmake --build "$dir" -j "$JOBS" 2>&1 | tee "$dir/build.log"; then FAILED+=("$label (build)"); return; fi
  # nvcc's own warnings differ by architecture (an sm_80-only body compiled out for sm_72 leaves
  # unused names behind; ptxas checks launch bounds against the SM's threads): the Jetson builds
  # keep none.
  if grep -q -E "warning #|ptxas warning" "$dir/build.log"; then
    say "$label: nvcc warnings:"
    grep -E "warning #|ptxas warning" "$dir/build.log" | sort -u
    FAILED+=("$label (nvcc warnings)")
  fi
  say "== $label: host tests"
  if ! ctest --test-dir "$dir" -L host --output-on-failure -j "$JOBS"; then FAILED+=("$label (host tests)"); fi
  SUMMARY+=("$label: $(($(stamp) - t0)) s")
}
# The -B folder of a configure command line, or the preset's build-<preset> folder.
cmake_binary_dir() {
  local prev=""
  for a in "$@"; do
    [ "$prev" = "-B" ] && { echo "$a"; return; }
    case "$a" in --preset=*) echo "$PWD/build-${a#--preset=}"; return ;; esac
    [ "$prev" = "--preset" ] && { echo "$PWD/build-$a"; return; }
    prev="$a"
  done
}

T_START=$(stamp)
if [ "$PARTS" = cuda12 ] || [ "$PARTS" = all ]; then
  t0=$(stamp)
  if [ -n "${TCU_CUDA12_ROOT:-}" ]; then
    CUDA12="$TCU_CUDA12_ROOT"
  else
    CUDA12="$WORK/toolkit"
    unpack_debian_cuda12 "$CUDA12"
  fi
  NVCC12="$CUDA12/bin/nvcc"
  "$NVCC12" --version | grep -q "release 12\." ||
    { echo "check_cuda12.sh: $NVCC12 is not a CUDA 12 nvcc" >&2; exit 2; }
  SUMMARY+=("CUDA 12 toolkit ready: $(($(stamp) - t0)) s")
  for arch in 72 87; do
    # CUDACXX/CUDAARCHS from the caller must not decide for these builds.
    build_and_test "CUDA 12 sm_$arch" -S . -B "$WORK/sm$arch" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$NVCC12" -DCMAKE_CUDA_ARCHITECTURES="$arch"
  done
fi
if [ "$PARTS" = orin13 ] || [ "$PARTS" = all ]; then
  command -v nvcc >/dev/null 2>&1 || export PATH="/usr/local/cuda/bin:$PATH"
  nvcc --version | grep -q "release 13\." || say "note: the nvcc on PATH is not CUDA 13: $(nvcc --version | tail -n 1)"
  build_and_test "$(nvcc --version | grep -o 'release [0-9.]*' | sed 's/release/CUDA/') jetson-orin preset (sm_87)" \
    --preset jetson-orin -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
fi

say "summary:"
for line in "${SUMMARY[@]}"; do say "  $line"; done
say "  total: $(($(stamp) - T_START)) s"
if [ ${#FAILED[@]} -gt 0 ]; then
  say "FAILED: ${FAILED[*]}"
  exit 1
fi
say "every Jetson build and its host tests passed"
