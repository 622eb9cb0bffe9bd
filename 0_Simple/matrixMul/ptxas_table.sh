#!/bin/sh
# ptxas_table.sh [SM]: registers, shared memory and spills of every kernel,
# as ptxas reports them (-Xptxas -v), as a Markdown table. Needs only nvcc
# (no GPU). Default SM = 90. The cp.async kernels use dynamic shared memory,
# which ptxas does not see: their size is printed by the sample (--help notes
# the stage count; bytes = stages * BK * (BM + 4 + BN) * 4).
set -e
sm=${1:-90}
here=$(cd "$(dirname "$0")" && pwd)
echo "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), -O3 -arch=sm_$sm"
echo
echo "| kernel | registers | static shared memory (bytes) | spill stores / loads (bytes) |"
echo "|---|---|---|---|"
nvcc -O3 -std=c++17 -lineinfo -gencode arch=compute_$sm,code=sm_$sm -Xptxas -v \
    -I"$here/../../common" -c "$here/matrixMul.cu" -o /dev/null 2>&1 | c++filt |
    awk '
    /Compiling entry function/ { k = $0; sub(/.*function .(void )?/, "", k); sub(/\(.*/, "", k); st = "0 / 0"; next }
    /spill stores/ { st = $5 " / " $9 }
    /Used [0-9]+ registers/ {
        r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r)
        s = "0"; if ($0 ~ /bytes smem/) { s = $0; sub(/ bytes smem.*/, "", s); sub(/.*, /, "", s) }
        rows[n++] = "| `" k "` | " r " | " s " | " st " |"
    }
    END { for (i = n - 1; i >= 0; i--) print rows[i] }'
