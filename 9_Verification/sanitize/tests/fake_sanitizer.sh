#!/bin/bash
# fake_sanitizer.sh: a stand-in for compute-sanitizer, so the harness's
# process side (workers, CUDA_VISIBLE_DEVICES, timeouts, reports) can be
# tested on a machine without a GPU (see test_harness.sh). It takes the same
# flags, never runs the program, and saves the fixture report for that
# program and tool: fixtures/<prog>.<tool>.xml (a real H200 capture) if
# present, else an empty report.
# planted_barrier sleeps 3 s so that a 1 s --timeout can be exercised.
save=""; tool=""
[ "$1" = --version ] && { echo "Version 0.0 (fake)"; exit 0; }
while [ $# -gt 0 ]; do case "$1" in --save) save=$2; shift 2;; --tool) tool=$2; shift 2;; --xml) shift;; --*) shift 2;; *) break;; esac; done
prog=$(basename "$1")
echo "fake: $tool $prog CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES args: $*"
F=$(cd "$(dirname "$0")" && pwd)/fixtures
case "$prog" in
  planted_barrier) sleep 3 ;;  # hangs past a 1 s timeout in the test
esac
f=$F/$prog.$tool.xml
if [ -f "$f" ]; then cp "$f" "$save"; if grep -q "<record>" "$f"; then exit 86; fi; exit 0; fi
echo '<ComputeSanitizerOutput/>' > "$save"; exit 0
