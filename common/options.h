/* options.h: the command line every sample shares (CONVENTIONS.md, "Command line").
 *
 * One option table drives parsing, validation and the --help text. The common
 * options (--help --device --quick --json --reps --seed) are built in; a sample
 * passes its own in an opt_spec array:
 *
 *   static long long n = 1 << 28;
 *   static const opt_spec my_opts[] = {
 *       OPT_INT_SPEC("n", "N", "elements per vector", &n, 1, 1LL << 34),
 *   };
 *   static const opts_config cfg = {"vectorAdd", "c = a + b, two ways",
 *                                   my_opts, 2, NULL};
 *   common_opts o;
 *   opts_parse_or_exit(&cfg, argc, argv, &o);   // before any CUDA call
 *
 * Integer values accept plain decimals, binary suffixes (K M G T = 2^10 ...
 * 2^40) and powers of two with an offset: 2^28, 2^20+1, 2^31-1.
 * Both --name=value and --name value are accepted.
 * Host-only C11: gcc compiles and unit-tests it without nvcc.
 */
#ifndef COMMON_OPTIONS_H
#define COMMON_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { OPT_FLAG, OPT_INT, OPT_STRING } opt_kind;

typedef struct {
    const char *name;     /* without the leading "--" */
    opt_kind kind;
    const char *metavar;  /* shown as --name=METAVAR; NULL for flags */
    const char *help;
    long long min, max;   /* OPT_INT: inclusive bounds */
    const char *choices;  /* OPT_STRING: "a|b|c", or NULL for any non-empty text */
    void *dest;           /* FLAG: int*, INT: long long*, STRING: const char** */
} opt_spec;

#define OPT_FLAG_SPEC(name, help, dest) {name, OPT_FLAG, NULL, help, 0, 0, NULL, dest}
#define OPT_INT_SPEC(name, metavar, help, dest, lo, hi) \
    {name, OPT_INT, metavar, help, lo, hi, NULL, dest}
#define OPT_STRING_SPEC(name, metavar, help, dest, choices) \
    {name, OPT_STRING, metavar, help, 0, 0, choices, dest}

typedef struct {
    const char *name;        /* sample name, used in every message */
    const char *summary;     /* one line: what the sample does */
    const opt_spec *extra;   /* the sample's own options (may be NULL) */
    int n_extra;
    const char *notes;       /* printed after the options in --help (variants, examples), or NULL */
    int device_all_ok;       /* 1: --device=all is accepted (sets all_devices) */
} opts_config;

typedef struct {
    int device;              /* --device=N (default 0) */
    int device_given;        /* 1 if --device was on the command line */
    int all_devices;         /* --device=all, where the sample allows it */
    int quick;               /* --quick: small sizes for sanitizer runs and smoke tests */
    int json;                /* --json: records as JSON lines */
    int reps;                /* --reps=N timed repetitions (default 20) */
    unsigned long long seed; /* --seed=N (default 2026) */
} common_opts;

#define OPTS_DEFAULT_REPS 20
#define OPTS_DEFAULT_SEED 2026ULL

/* Parse argv. Returns 0 on success, 1 if --help was given (usage not yet
 * printed), -1 on a bad argument with a message naming it in err. */
int opts_parse(const opts_config *cfg, int argc, char **argv, common_opts *out,
               char *err, size_t errlen);

/* opts_parse, then: --help prints usage and exits 0; a bad argument prints
 * "<name>: error: <message>" and a hint to stderr, then the FAIL line, and exits 1. */
void opts_parse_or_exit(const opts_config *cfg, int argc, char **argv, common_opts *out);

/* The usage text, generated from the table. */
void opts_usage(const opts_config *cfg, FILE *f);

/* Parse one integer value (see the header comment). 0 on success, -1 if the
 * text is not an integer or does not fit in a long long. */
int opts_parse_int(const char *text, long long *out);

/* bytes = count * elem_size * nbufs, refusing overflow of size_t or of the
 * given limit. Returns 0 on success, -1 (with a message naming what) otherwise. */
int opts_checked_bytes(const char *what, long long count, size_t elem_size, int nbufs,
                       unsigned long long limit, size_t *bytes, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_OPTIONS_H */
