/* kgate's command line: the options (kg_opts), --help, and their parsing.
 * Every option is refused with a reason and exit 1 when it is wrong
 * (tests/test_cli.sh reads the option lists in cli.c and checks --help
 * names each one). */
#ifndef KGATE_CLI_H
#define KGATE_CLI_H
#include <stdio.h>
#include "judge.h"
#include "kg_report.h"   /* KG_MAX_DEV */

#define MAX_ARCH 4

enum { MODE_FULL, MODE_STATIC, MODE_COMPILE, MODE_DRY };

typedef struct {
    const char *task, *json, *labels, *arch, *work, *nvcc, *feedback, *python, *ncu;
    int jobs, mode, no_timing, keep, no_sandbox, policy;
    int explain;                       /* -1: where ncu is found, 0: never, 1: always (an error without ncu) */
    int sanitize;                      /* KG_SAN_NONE, _FAST (the default), _ALL (sanpass.h) */
    int sanitize_given;                /* --sanitize was on the command line */
    const char *sanitizer;             /* --compute-sanitizer=PATH (default: CUDA's) */
    int late_warps;                    /* KG_LATE_AUTO (the default), _ALL, _NONE (late_warps.h) */
    const char *kernelbench;           /* --kernelbench=PROBLEM.py or DIR (kbgate.c) */
    const char *kb_runner, *kb_rules;  /* its runner script and static pass (default: installed) */
    int all_devices, n_dev_req, dev_req[KG_MAX_DEV];
    double timeout, scan_timeout, compile_timeout, torch_timeout, explain_budget;
    long long memory_mb;               /* --memory (0: the sandbox's default) */
    unsigned long long seed;
    const char **paths;
    int n_paths;
} kg_opts;

/* --help's text (and the tasks' signatures) to f */
void usage(FILE *f);
/* "kgate: error: <fmt with a>", the FAIL line; returns 1 */
int bad_arg(const char *fmt, const char *a);
/* Returns 0, -1 (error printed), or -2 (--help). */
int parse_args(int argc, char **argv, kg_opts *o);
/* 0 when s is a list of architectures as --arch takes one ("90", "90,100":
 * 50 to 200, at most MAX_ARCH), else -1. */
int kg_arch_list_check(const char *s);

#endif
