#!/usr/bin/env bash
# carried_env.sh [CARRY_DIR]: on a GPU machine without a package registry,
# unpack the .deb files carried in CARRY_DIR/debs (default .carry/debs) into
# a private prefix and print the exports that point the build at it:
#     eval "$(tools/carried_env.sh .carry)"
# CARRY_DIR holds debs/*.deb (apt-get download libcmocka0 libcmocka-dev
# libclang1-19 libllvm19 libclang-common-19-dev libz3-4 bubblewrap) and
# clang-c/ (the headers of libclang-19-dev, whose .deb is too large to carry).
# See docs/operators.md, "A machine without a package registry".
set -eu
carry=${1:-.carry}
pfx=${CARRIED_PREFIX:-/tmp/pfx}
mkdir -p "$pfx"
for f in "$carry"/debs/*.deb; do dpkg -x "$f" "$pfx"; done
L=$pfx/usr/lib/llvm-19
if [ -d "$carry/clang-c" ]; then
    mkdir -p "$L/include" && cp -r "$carry/clang-c" "$L/include/"
    ln -sf libclang-19.so.1 "$L/lib/libclang.so"
fi
echo "export SKIP_PACKAGES=1 CMOCKA_PREFIX=$pfx LLVM_PREFIX=$L KGATE_CLANG_RESOURCE_DIR=$L/lib/clang/19"
echo "export LD_LIBRARY_PATH=$L/lib:$pfx/usr/lib/x86_64-linux-gnu:\${LD_LIBRARY_PATH:-}"
[ -x "$pfx/usr/bin/bwrap" ] && echo "export KGATE_BWRAP=$pfx/usr/bin/bwrap PATH=$pfx/usr/bin:\$PATH"
exit 0
