/* options.h: the command line every sample shares (CONVENTIONS.md, "Command line").
 *
 * One option table drives parsing, validation and the --help text. The common
 * options (--help --device --quick --json --reps --seed) are built in; a sample
 * passes its own in an opt_spec array:
 *
 *   static long long n = 1 << 28;
 *   static const char *variant = "all";
 *   static char variant_choices[256];       // "all|cpu|naive|...", from the table
 *   static const opt_spec my_opts[] = {
 *       OPT_INT_SPEC("n", "N", "elements per vector", &n, 1, 1LL << 34),
 *       OPT_STRING_SPEC("variant", "NAME", "run one variant (the reference always runs)",
 *                       &variant, variant_choices),
 *   };
 *   static const opts_config cfg = {"vectorAdd", "c = a + b, two ways",
 *                                   my_opts, 2, NULL, 0};
 *   common_opts o;
 *   opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu",
 *                     &variants[0].name, sizeof variants[0], N_VARIANTS);
 *   opts_parse_or_exit(&cfg, argc, argv, &o);   // before any CUDA call
 *
 * The rules, the same in every binary because they live here:
 *   - -h and --help print the usage and exit 0, wherever they are on the line
 *     (even after a bad option); the defaults shown are the table's own.
 *   - --name=value and --name value both work (a value may not start with "--");
 *     every option at most once: a repeated one is refused by name.
 *   - an unknown option, or a value not among the choices, is refused with the
 *     closest name suggested (or the list of names when none is close).
 *   - integers: 1000, 64K (K = 1024; M G T = 2^20 2^30 2^40; 64KiB is 64K),
 *     2^28, and sums of those: 2^20+1, 4G+1, 1GiB-1.
 *   - --variant (a string option named "variant", choices "all|cpu|..."):
 *     all (the default) checks and times every variant; a variant's name only
 *     that one, and the reference it is compared with, which always runs;
 *     cpu only the CPU baseline (and the reference). opts_variant_runs() and
 *     opts_variant_runs_cpu() say what to run. A sample without a CPU baseline
 *     leaves cpu out of its choices, and --variant=cpu is refused saying so.
 *   - with --json on the line, a bad argument's FAIL line is a JSON record too.
 * Host-only C11: gcc compiles and unit-tests it without nvcc.
 */
#ifndef COMMON_OPTIONS_H
#define COMMON_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    OPT_FLAG, OPT_INT, OPT_STRING,
    OPT_COMMON_OMIT,   /* not an option: a common one that means nothing to this sample */
    OPT_COMMON_TEXT    /* not an option: a common option's --help text, for this sample */
} opt_kind;

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

/* In the same table, two entries that change a common option rather than add
 * one (deviceQuery uses both):
 *   OPT_COMMON_OMIT_SPEC("reps")   --reps means nothing here: not listed in
 *       --help, and refused by name. Only "reps", "seed" and "quick"; an
 *       omitted --quick is still accepted, and does nothing, because make run,
 *       make verify and the process tests pass it to every binary.
 *   OPT_COMMON_TEXT_SPEC("device", "show device N only")   the --device line
 *       of --help says this instead (any common option but help). */
#define OPT_COMMON_OMIT_SPEC(name) {name, OPT_COMMON_OMIT, NULL, NULL, 0, 0, NULL, NULL}
#define OPT_COMMON_TEXT_SPEC(name, help) {name, OPT_COMMON_TEXT, NULL, help, 0, 0, NULL, NULL}

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

/* Parse argv. Returns 0 on success, 1 if -h or --help is anywhere on the line
 * (usage not yet printed; nothing parsed), -1 on a bad argument with a
 * message naming it in err. */
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

/* Choices for an OPT_STRING_SPEC from a table: first ("all|cpu", or "all"
 * for a sample without a CPU baseline), then the name of each of the n
 * entries; first_name points at the first entry's const char *name field
 * and stride is the size of an entry:
 *     opts_join_choices(buf, sizeof buf, "all|cpu", &variants[0].name,
 *                       sizeof variants[0], N_VARIANTS);
 * Returns the length, or -1 (buf emptied; opts_parse then refuses to run,
 * naming the option) when the names do not fit. */
int opts_join_choices(char *buf, size_t len, const char *first, const void *first_name,
                      size_t stride, int n);

/* What --variant=chosen runs (see the header comment): variant `name`
 * (is_reference: the one the others are compared with, which always runs),
 * and the CPU baseline. */
int opts_variant_runs(const char *chosen, const char *name, int is_reference);
int opts_variant_runs_cpu(const char *chosen);

/* The closest of n names to text (edit distance, a prefix counts as close),
 * or NULL when none is close enough to be the one meant. */
const char *opts_closest(const char *text, size_t text_len, const char *const *names, int n);

/* bytes = count * elem_size * nbufs, refusing overflow of size_t or of the
 * given limit. Returns 0 on success, -1 (with a message naming what) otherwise. */
int opts_checked_bytes(const char *what, long long count, size_t elem_size, int nbufs,
                       unsigned long long limit, size_t *bytes, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_OPTIONS_H */
