/* kgate-scan: the static track in a sandbox of its own (build/libexec/kgate/kgate-scan).
 *
 *   kgate-scan FILE NAME [--policy=P] [--signature=SIG] [--torch-entry=NAME]
 *              [--arch=LIST] [--deadline=S]
 *                              (inside the sandbox: FILE is /scratch/cand.src)
 *
 * Reads the extracted candidate source, runs the static track
 * (kg_static_scan: the include policy first, then libclang and the rules,
 * then the check that it read what nvcc compiles, for the architectures of
 * --arch, default 90) and writes one kg_static_msg record to fd 3. libclang
 * parses hostile text here: a preprocessor bomb or a crash costs this
 * process, which the sandbox's CPU, memory and wall-clock limits end, never
 * the gate. The gate validates the record before using any of it.
 *
 * --deadline=S (seconds, e.g. a little under the sandbox's wall-clock
 * limit): when the scan has not finished by then, it kills its nvcc runs and
 * writes a record with timed_out = 1 and rc = -1 instead: the gate can tell
 * a scan that ran out of time on a loaded machine (its own failure: retry,
 * then SKIPPED) from one that judged the candidate. Without it, a scan that
 * runs out of time is killed by the sandbox and writes nothing.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "kgate_static.h"

/* The record written when the deadline passes: prepared before the scan
 * starts, so the signal handler only writes it. */
static kg_static_msg timeout_msg;

static void on_deadline(int sig)
{
    (void)sig;
    kg_static_abort();
    const char *p = (const char *)&timeout_msg;
    size_t left = sizeof timeout_msg;
    while (left > 0) {
        ssize_t w = write(3, p, left);
        if (w <= 0) break;
        p += w;
        left -= (size_t)w;
    }
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kgate-scan FILE NAME [--policy=P] [--signature=SIG] [--torch-entry=NAME] "
                        "[--arch=LIST] [--deadline=S] (result record on fd 3)\n");
        return 2;
    }
    int policy = KG_POLICY_DEFAULT;
    double deadline = 0;
    kg_scan_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 3; i < argc; i++) {
        if (!strncmp(argv[i], "--policy=", 9)) policy = kg_policy_parse(argv[i] + 9);
        else if (!strncmp(argv[i], "--signature=", 12)) o.launch_signature = argv[i] + 12;
        else if (!strncmp(argv[i], "--torch-entry=", 14)) o.torch_entry = argv[i] + 14;
        else if (!strncmp(argv[i], "--arch=", 7)) o.arch = argv[i] + 7;
        else if (!strncmp(argv[i], "--deadline=", 11)) {
            char *end = NULL;
            deadline = strtod(argv[i] + 11, &end);
            if (!end || *end || !(deadline > 0 && deadline < 100000)) policy = -1;
        } else policy = -1;
        if (policy < 0) { fprintf(stderr, "kgate-scan: bad argument %s\n", argv[i]); return 2; }
    }
    if (deadline > 0) {
        kg_static_result none;
        memset(&none, 0, sizeof none);
        none.timed_out = 1;
        snprintf(none.parse_error, sizeof none.parse_error,
                 "%.60s: the static scan did not finish within its %g s deadline (the gate's failure, "
                 "not the candidate's)", argv[2], deadline);
        kg_static_msg_from(&none, -1, policy, &timeout_msg);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_deadline;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it;
        memset(&it, 0, sizeof it);
        it.it_value.tv_sec = (time_t)deadline;
        it.it_value.tv_usec = (suseconds_t)((deadline - (double)(time_t)deadline) * 1e6);
        setitimer(ITIMER_REAL, &it, NULL);
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    size_t cap = 1 << 16, n = 0;
    char *src = malloc(cap + 1);
    for (;;) {
        if (!src) return 1;
        size_t got = fread(src + n, 1, cap - n, f);
        n += got;
        if (n < cap || n > (2u << 20)) break;
        cap *= 2;
        src = realloc(src, cap + 1);
    }
    fclose(f);
    src[n] = 0;
    kg_static_result r;
    memset(&r, 0, sizeof r);
    int rc = kg_static_scan_ex(src, argv[2], &o, &r);
    static kg_static_msg m;
    kg_static_msg_from(&r, rc, policy, &m);
    /* the real record, whole: the deadline's record cannot cut into it */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    ssize_t w = write(3, &m, sizeof m);
    kg_static_free(&r);
    free(src);
    return w == (ssize_t)sizeof m ? 0 : 1;
}
