#!/usr/bin/env bash
# test_results.sh: the results tools (tools/results.py, tools/charts.py,
# tools/bench.sh) tested on the CPU from the committed results (see
# tests/test_results.py). Ends with "results tools: N passed, M failed".
cd "$(dirname "$0")/.."
exec python3 tests/test_results.py
