#!/usr/bin/env python3
"""fake_rendezvous.py: how compute-sanitizer finds the program it launched,
played on the CPU, so that test_harness.sh can show what two concurrent runs
in two PID namespaces do to it (fake_sanitizer.sh execs this file when
FAKE_RENDEZVOUS is set).

What compute-sanitizer 2025.3.1 does (seen in the environment it gives its
target: NV_SANITIZER_INJECTION_TRANSPORT_TYPE=uds,
NV_SANITIZER_INJECTION_PORT_BASE=<--port, default 49152>,
NV_SANITIZER_INJECTION_PORT_RANGE_END=<--max-connections - 1>; the socket
name prefix "@agora_socket_" is in its libraries): the injected target binds
the first free ABSTRACT Unix socket "agora_socket_<port>" of the range
[--port, --port + --max-connections); the tool scans that range, asks each
socket's process for its pid and takes the one whose pid is the pid of the
child it launched. Abstract socket names belong to the network namespace, and
pids to the PID namespace: two runs in two PID namespaces of one network
namespace have targets with the same pid, bound in the same range, and a tool
can take the other run's target. Its own target then runs unwatched, and the
tool ends with "Target application terminated before first instrumented API
call" (exit 255, no report), or waits for ever.

Here: the target is a child that binds the first free name in the range
(prefixed with $FAKE_RENDEZVOUS, so that two test runs on one machine never
meet) and answers "<pid> <token>" for 2 s; the tool waits 0.5 s, scans the
range as the real one does and takes the first socket whose pid is its
child's. The token (the --save path, unique to the run) says whether it took
its own target: if so it writes an empty report and exits 0; if not, it says
so and exits 255 without a report, as compute-sanitizer did on the H200.

FAKE_RENDEZVOUS_FIXED_RANGE=1: the target binds in one fixed range, the
default 49152 to 49161, whatever --port and --max-connections say, and the
tool scans that range (or it could never find its target). That is a target
that does not honour the range it is given, which is what the H200 showed on
2026-11-30: with a range per worker, matrixMul memcheck and racecheck, started
at the same moment on the two workers, still missed their targets (one
"Target application terminated before first instrumented API call", the other
silent until its time limit). Then only separate network namespaces keep two
runs apart.
"""
import os
import socket
import sys
import time


def main(argv):
    if argv[:1] == ["--version"]:
        print("Version 0.0 (fake rendezvous)")
        return 0
    prefix = os.environ["FAKE_RENDEZVOUS"]
    port, count, save = 49152, 10, None  # compute-sanitizer's defaults
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        flag = argv[i]
        if flag == "--xml":
            i += 1
            continue
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if flag == "--port":
            port = int(value)
        elif flag == "--max-connections":
            count = int(value)
        elif flag == "--save":
            save = value
        i += 2
    print("fake rendezvous: ports %d to %d" % (port, port + count - 1), flush=True)
    if os.environ.get("FAKE_RENDEZVOUS_FIXED_RANGE") == "1":
        port, count = 49152, 10
        print("fake rendezvous: the target ignores them: ports %d to %d" % (port, port + count - 1),
              flush=True)
    names = ["\0%s_agora_socket_%d" % (prefix, p) for p in range(port, port + count)]

    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:  # the target
        os.close(ready_r)
        s = None
        for name in names:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.bind(name)
                break
            except OSError:
                s.close()
                s = None
        os.write(ready_w, b"1" if s else b"0")
        os.close(ready_w)
        if s is None:
            os._exit(3)
        s.listen(16)
        s.settimeout(0.05)
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            try:
                c, _ = s.accept()
            except OSError:
                continue
            try:
                c.sendall(("%d %s\n" % (os.getpid(), save)).encode())
            except OSError:
                pass
            c.close()
        os._exit(0)

    os.close(ready_w)
    bound = os.read(ready_r, 1) == b"1"
    os.close(ready_r)
    time.sleep(0.5)  # a run started beside this one has bound its socket too
    taken = None
    for name in names if bound else []:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(1.0)
        try:
            c.connect(name)
            words = c.makefile().readline().split(" ", 1)
        except OSError:
            continue
        finally:
            c.close()
        if len(words) == 2 and int(words[0]) == child:
            taken = words[1].strip()
            break
    os.waitpid(child, 0)
    if taken != save:
        print("fake rendezvous: Error: Target application terminated before first instrumented "
              "API call (the process with our child's pid %d was another run's: %s)" % (child, taken),
              flush=True)
        return 255
    with open(save, "w") as f:
        f.write("<ComputeSanitizerOutput/>\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
