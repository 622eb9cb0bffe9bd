#!/bin/bash
# fake_sanitizer.sh: a stand-in for compute-sanitizer, so the harness's
# process side (workers, CUDA_VISIBLE_DEVICES, timeouts, containment, caps,
# reports) can be tested on a machine without a GPU (see test_harness.sh).
# It takes the same flags, never runs the program, and saves the fixture
# report for that program and tool: $FAKE_FIXTURES/<prog>.<tool>.xml
# (default tests/fixtures/: real H200 captures) if present, else an empty
# report. planted_barrier sleeps 3 s so that a 1 s --timeout can be exercised.
# What a hostile program or tool might do, switched on by the environment
# (the harness passes its environment on):
#   FAKE_REPORT=FILE     save FILE as the report instead of the fixture
#   FAKE_SLEEP=S         sleep S seconds first (as a child named FAKE_ORPHAN-sleep)
#   FAKE_ORPHAN=TOKEN    leave a grandchild that called setsid (argv[0] TOKEN-orphan)
#                        and a plain background child (TOKEN-child), both sleeping 300 s
#   FAKE_SPEW=BYTES      write that many bytes to stdout
#   FAKE_XML_FOREVER=1   write to the report without end (about 1 MB/s)
#   FAKE_RENDEZVOUS=TAG  play compute-sanitizer's search for its target instead
#                        (fake_rendezvous.py; TAG keeps two test runs apart)
#   FAKE_RENDEZVOUS_FIXED_RANGE=1  ... with a target that ignores --port (one range for all)
#   FAKE_ATTACH=DIR      count each attempt of a program and tool in DIR/<prog>.<tool>.n, and
#                        fail the first FAKE_ATTACH_FAILS (default 0) as compute-sanitizer does
#                        when it cannot attach: FAKE_ATTACH_HOW=hang (default) prints "No
#                        attachable process found" and waits for ever, its setsid grandchild
#                        (argv[0] FAKE_ATTACH_TOKEN-target) holding a lock on
#                        DIR/<prog>.<tool>.lock; =exit prints "Target application terminated
#                        before first instrumented API call" and exits 255. An attempt that
#                        finds the lock held (an earlier attempt still alive) says so, exits 1.
# ${0%/*}, not $(dirname ...): no fork before python starts, so the pids in a
# run's PID namespace are the same in every run, as they are for the real tool.
[ -n "${FAKE_RENDEZVOUS:-}" ] && exec python3 "${0%/*}/fake_rendezvous.py" "$@"
save=""; tool=""; launch=none
[ "$1" = --version ] && { echo "Version 0.0 (fake)"; exit 0; }
while [ $# -gt 0 ]; do case "$1" in --save) save=$2; shift 2;; --tool) tool=$2; shift 2;; --launch-timeout) launch=$2; shift 2;; --xml) shift;; --*) shift 2;; *) break;; esac; done
prog=$(basename "$1")
echo "fake: $tool $prog CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES launch-timeout=$launch args: $*"
F=${FAKE_FIXTURES:-$(dirname "$(readlink -f "$0")")/fixtures}
if [ -n "${FAKE_ATTACH:-}" ]; then
  lock=$FAKE_ATTACH/$prog.$tool.lock
  flock -n "$lock" true || { echo "fake: an earlier attempt of this run is still alive"; exit 1; }
  echo x >>"$FAKE_ATTACH/$prog.$tool.n"
  if [ "$(wc -l <"$FAKE_ATTACH/$prog.$tool.n")" -le "${FAKE_ATTACH_FAILS:-0}" ]; then
    echo "========= COMPUTE-SANITIZER"
    if [ "${FAKE_ATTACH_HOW:-hang}" = exit ]; then
      echo "========= Error: Target application terminated before first instrumented API call"
      exit 255
    fi
    echo "========= Error: No attachable process found. compute-sanitizer timed-out."
    echo "========= Default timeout can be adjusted with --launch-timeout. Awaiting target completion."
    exec 9>"$lock"
    flock 9
    # the "target", waiting for a tool that never came, in a session of its own
    setsid bash -c "exec -a '${FAKE_ATTACH_TOKEN:-fake}-target' sleep 300" </dev/null >/dev/null 2>&1 &
    exec 9>&-
    bash -c "exec -a '${FAKE_ATTACH_TOKEN:-fake}-tool' sleep 300"
    exit 1
  fi
fi
if [ -n "${FAKE_ORPHAN:-}" ]; then
  setsid bash -c "exec -a '$FAKE_ORPHAN-orphan' sleep 300" </dev/null >/dev/null 2>&1 &
  bash -c "exec -a '$FAKE_ORPHAN-child' sleep 300" </dev/null >/dev/null 2>&1 &
fi
[ -n "${FAKE_SPEW:-}" ] && head -c "$FAKE_SPEW" /dev/zero | tr '\0' 'x'
if [ -n "${FAKE_XML_FOREVER:-}" ]; then  # about 1 MB/s, for ever
  line=$(printf '<record>%.0s' $(seq 100))
  while :; do for i in $(seq 100); do echo "$line"; done; sleep 0.08; done > "$save"
fi
if [ -n "${FAKE_SLEEP:-}" ]; then
  bash -c "exec -a '${FAKE_ORPHAN:-fake}-sleep' sleep $FAKE_SLEEP"
fi
case "$prog" in
  planted_barrier) sleep 3 ;;  # hangs past a 1 s timeout in the test
esac
f=$F/$prog.$tool.xml
[ -n "${FAKE_REPORT:-}" ] && f=$FAKE_REPORT
if [ -f "$f" ]; then cp "$f" "$save"; if grep -q "<record>" "$f"; then exit 86; fi; exit 0; fi
echo '<ComputeSanitizerOutput/>' > "$save"; exit 0
