#!/usr/bin/env bash
# test_hostile.sh: the adversarial corpus (corpus/hostile_*) through the real
# gate on a machine without a GPU: --compile-only (the static track and nvcc,
# each in its sandbox) and --dry-run (also the harness: each candidate loaded
# and launch() called once in its sandbox). Around both runs:
#   - a canary tree (/var/tmp/kgate-canary) the candidates try to change: its
#     checksums must not move;
#   - a loopback listener on 127.0.0.1:47199 the candidates try to reach: it
#     must accept nothing;
#   - no process may outlive the gate (no kgate_escapee, no process of a
#     sandbox uid), no file may appear where the candidates aim;
#   - every candidate gets its label's verdict (in a dry run the L3 speed
#     tricks, the L4 timings and what only a GPU shows, "(on the GPU only)",
#     cannot be seen: STATIC-OK).
# Needs bubblewrap, python3 (the listener) and bin/kgate built. Ends with
# "N passed, M failed".
set -u
cd "$(dirname "$0")/../../.."
here=9_Verification/kgate
passed=0
failed=0
ok()  { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

tmp=$(mktemp -d)
canary=/var/tmp/kgate-canary
listener_pid=
cleanup() {
    [ -n "$listener_pid" ] && kill "$listener_pid" 2>/dev/null
    rm -rf "$tmp" "$canary"
}
trap cleanup EXIT

if [ ! -x bin/kgate ] || [ ! -x build/libexec/kgate/kgate-sandbox ]; then
    bad "bin/kgate not built (make -C $here)"; echo "$passed passed, $failed failed"; exit 1
fi

# the hostile candidates and their labels
cp $here/corpus/hostile_* "$tmp/"
grep -E '^hostile_' $here/corpus/labels.tsv > "$tmp/labels.tsv"
n=$(ls "$tmp"/hostile_*.cu | wc -l)
[ "$n" -ge 15 ] && ok || bad "only $n hostile candidates"

# the canary tree
rm -rf "$canary"
mkdir -p "$canary/sub"
echo "keep me" > "$canary/keep.txt"
head -c 4096 /dev/urandom > "$canary/data.bin"
echo nested > "$canary/sub/n.txt"
canary_sum() { (cd "$canary" && find . -print0 | sort -z | xargs -0 -r sha256sum 2>/dev/null; find . | sort) | sha256sum; }
before=$(canary_sum)

# the loopback listener: counts connections and bytes
if ! command -v python3 >/dev/null; then
    bad "python3 is needed for the loopback listener"; echo "$passed passed, $failed failed"; exit 1
fi
python3 - "$tmp/listener.count" <<'EOF' &
import socket, sys, time
out = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 47199))
s.listen(16)
s.settimeout(0.5)
n = 0
open(out, "w").write("0\n")
end = time.time() + 900
while time.time() < end:
    try:
        c, _ = s.accept()
        n += 1
        c.close()
        open(out, "w").write("%d\n" % n)
    except socket.timeout:
        pass
EOF
listener_pid=$!
for _ in $(seq 50); do [ -f "$tmp/listener.count" ] && break; sleep 0.1; done
[ -f "$tmp/listener.count" ] && ok || bad "the loopback listener did not start"

sandbox_procs() {   # processes of the sandbox uids (61000..61255): none may be left
    ps -eo uid=,pid=,comm= 2>/dev/null | awk '$1 >= 61000 && $1 < 62024'
}

# verdicts: file -> verdict from a run's output
verdict_of() { grep -E "^[A-Z0-9-]+ +$1 " "$2" | awk '{print $1}'; }

check_run() {   # $1 = mode name, $2 = output file, $3 = exit status
    local mode=$1 out=$2 rc=$3 f lab want got
    if grep -q "^# sandbox: bubblewrap" "$out"; then ok; else bad "$mode: no sandbox line: $(head -2 "$out")"; fi
    [ "$rc" -eq 0 ] && ok || bad "$mode: kgate exited $rc: $(tail -1 "$out")"
    while IFS=$'\t' read -r f _task lab _defect; do
        want=$lab
        case "$mode:$lab" in
            compile-only:L2|compile-only:L3|compile-only:L4|dry-run:L3|dry-run:L4) want=STATIC-OK ;;
        esac
        # what only a run on a GPU can show (the GPU's memory, a GPU hang)
        case "$mode:$_defect" in dry-run:*"(on the GPU only)"*) want=STATIC-OK ;; esac
        got=$(verdict_of "$f" "$out")
        if [ "$got" = "$want" ]; then ok
        else bad "$mode: $f got '${got:-nothing}', want $want ($(grep -A1 -E "^[A-Z0-9-]+ +$f " "$out" | tail -1))"; fi
    done < "$tmp/labels.tsv"
    # the harms did not happen
    [ "$(canary_sum)" = "$before" ] && ok || bad "$mode: the canary tree changed"
    [ "$(cat "$tmp/listener.count")" = "0" ] && ok || bad "$mode: the loopback listener accepted $(cat "$tmp/listener.count") connection(s)"
    for p in /etc/kgate_pwned /var/tmp/kgate_env.txt /kgate_pwned /var/tmp/kgate-canary/pwned.txt; do
        [ ! -e "$p" ] && ok || bad "$mode: $p exists"
    done
    sleep 0.3
    if pgrep -x kgate_escapee >/dev/null; then bad "$mode: kgate_escapee outlived the gate"; else ok; fi
    local left
    left=$(sandbox_procs)
    [ -z "$left" ] && ok || bad "$mode: processes of sandbox uids outlived the gate: $left"
}

# 1. static track and nvcc
bin/kgate --compile-only --scan-timeout=10 --compile-timeout=60 --labels="$tmp/labels.tsv" \
    "$tmp"/hostile_*.cu > "$tmp/compile.txt" 2>&1
check_run compile-only "$tmp/compile.txt" $?
echo "compile-only: $(grep -E '^kgate:' "$tmp/compile.txt")"

# 2. ... and the harness, without a GPU
bin/kgate --dry-run --timeout=5 --scan-timeout=10 --compile-timeout=60 --labels="$tmp/labels.tsv" \
    "$tmp"/hostile_*.cu > "$tmp/dry.txt" 2>&1
check_run dry-run "$tmp/dry.txt" $?
echo "dry-run: $(grep -E '^kgate:' "$tmp/dry.txt")"
grep -E '^median overhead' "$tmp/dry.txt"
# the reasons name what was tried
for pat in "connect to 127.0.0.1:47199 refused" "write to /etc/kgate_pwned refused" \
           "delete of /var/tmp/kgate-canary/keep.txt refused" "setsid()" "protocol violation" \
           "pid 1, its parent" "hang: killed after the 5 s limit"; do
    grep -qF -- "$pat" "$tmp/dry.txt" && ok || bad "dry-run: no reason mentions '$pat'"
done

# 3. without a sandbox the gate refuses to run (a bubblewrap that does not start)
KGATE_BWRAP=/bin/false bin/kgate --compile-only "$here/corpus/relu_basic.cu" > "$tmp/nosb.txt" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "FAIL (no sandbox" "$tmp/nosb.txt"; then ok
else bad "a broken sandbox was not refused (exit $rc): $(tail -1 "$tmp/nosb.txt")"; fi
# ... and --no-sandbox says so loudly (a harmless candidate)
bin/kgate --compile-only --no-sandbox "$here/corpus/relu_basic.cu" > "$tmp/nosb2.txt" 2>&1
if grep -q "WARNING: NO SANDBOX" "$tmp/nosb2.txt" && grep -q "^STATIC-OK" "$tmp/nosb2.txt"; then ok
else bad "--no-sandbox: $(head -3 "$tmp/nosb2.txt")"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
