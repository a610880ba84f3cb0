#!/usr/bin/env bash
# Build what the CircuitPython lane needs (tests/test_cp.py, tools/lanes/cpvm.py, tools/quality/bench.py):
# CircuitPython 10's unix port, 32-bit like the boards and static, and CircuitPython's own
# mpy-cross, from a checkout of adafruit/circuitpython fetched from GitHub.
#
#   tools/lanes/build-circuitpython.sh [DEST]      # default: ~/.cache/qiklaxon/circuitpython
#   export QK_CIRCUITPYTHON=DEST              # then the lane finds them
#
# Needs internet, git, make, gcc with 32-bit support (Debian/Ubuntu: gcc-multilib) and
# python3 with the pip packages huffman and polib (CircuitPython's message compression).
# It builds the commit ../shared/circuitpython was built from; QK_CP_COMMIT picks another.
# (Not run in this project's CI, which has ../shared/circuitpython already.)
set -euo pipefail
dest=${1:-"$HOME/.cache/qiklaxon/circuitpython"}
commit=${QK_CP_COMMIT:-cd3da4a5d894a9648871db7188fc38ee4b344cd4}
src="$dest/src"
python3 -c "import huffman, polib" 2>/dev/null || {
  echo "build-circuitpython: pip install huffman polib first" >&2; exit 2; }
mkdir -p "$src"
if [ ! -d "$src/.git" ]; then
  git -C "$src" init -q
  git -C "$src" remote add origin https://github.com/adafruit/circuitpython.git
fi
git -C "$src" fetch -q --depth 1 origin "$commit"
git -C "$src" checkout -q FETCH_HEAD
# No submodules: no frozen modules, no btree, no TLS, no ffi; 32-bit and static.
make -C "$src/mpy-cross" -j"$(nproc)" BUILD=build-static PROG=mpy-cross-static \
  LDFLAGS_EXTRA=-static
make -C "$src/ports/unix" -j"$(nproc)" VARIANT=standard FROZEN_MANIFEST= \
  MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_SSL_AXTLS=0 MICROPY_SSL_MBEDTLS=0 \
  MICROPY_PY_SSL=0 MICROPY_FORCE_32BIT=1 BUILD=build-qk32 PROG=circuitpython-qk32 \
  LDFLAGS_EXTRA=-static CFLAGS_EXTRA=-Wno-error
cp "$src/mpy-cross/build-static/mpy-cross-static" "$dest/mpy-cross"
cp "$src/ports/unix/build-qk32/circuitpython-qk32" "$dest/circuitpython"
echo "built $dest/circuitpython and $dest/mpy-cross; now: export QK_CIRCUITPYTHON=$dest"
