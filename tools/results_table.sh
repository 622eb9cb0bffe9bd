#!/usr/bin/env bash
# results_table.sh [--check] [results/<GPU>/results.json ...]: the one command
# that regenerates every sample README's results table, between
#     <!-- results:begin -->  and  <!-- results:end -->
# from results.json (default: every results/*/results.json): per GPU, the
# sample's default run, with NVIDIA's own sample figure on that GPU as
# context where results/nvidia_samples.tsv has one. A README without the
# markers is left alone; a sample with no run gets nothing between them.
# --check changes nothing and exits 1 if a committed table disagrees with
# results.json (the tests run it). The work is done by tools/results.py.
cd "$(dirname "$0")/.."
exec python3 tools/results.py tables "$@"
