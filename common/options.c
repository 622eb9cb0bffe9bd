/* options.c: strict parsing of the shared command line (see options.h). */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Parse a decimal run of digits with optional sign; *end gets the first byte
 * after it. Returns -1 on overflow or when there are no digits. */
static int parse_decimal(const char *s, long long *out, const char **end)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') {
        neg = (*p == '-');
        p++;
    }
    if (!isdigit((unsigned char)*p)) return -1;
    unsigned long long v = 0;
    while (isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10) return -1;
        v = v * 10 + d;
        p++;
    }
    if (!neg && v > (unsigned long long)LLONG_MAX) return -1;
    if (neg && v > (unsigned long long)LLONG_MAX + 1ULL) return -1;
    *out = neg ? (long long)(0ULL - v) : (long long)v;
    *end = p;
    return 0;
}

int opts_parse_int(const char *text, long long *out)
{
    if (text == NULL || *text == '\0') return -1;
    long long v;
    const char *p;
    if (parse_decimal(text, &v, &p) != 0) return -1;

    if (p[0] == '^') {
        /* 2^E, 2^E+D, 2^E-D */
        if (v != 2) return -1;
        long long e;
        if (p[1] == '+' || p[1] == '-') return -1;
        if (parse_decimal(p + 1, &e, &p) != 0 || e < 0 || e > 62) return -1;
        long long base = 1LL << e;
        if (*p == '+' || *p == '-') {
            int minus = (*p == '-');
            long long d;
            if (p[1] == '+' || p[1] == '-') return -1;
            if (parse_decimal(p + 1, &d, &p) != 0) return -1;
            if (minus) {
                base -= d; /* cannot overflow: base >= 1, d >= 0 */
            } else {
                if (d > LLONG_MAX - base) return -1;
                base += d;
            }
        }
        if (*p != '\0') return -1;
        *out = base;
        return 0;
    }

    int shift = 0;
    switch (*p) {
    case '\0': break;
    case 'K': case 'k': shift = 10; p++; break;
    case 'M': case 'm': shift = 20; p++; break;
    case 'G': case 'g': shift = 30; p++; break;
    case 'T': case 't': shift = 40; p++; break;
    default: return -1;
    }
    if (*p != '\0') return -1;
    if (shift) {
        long long limit = LLONG_MAX >> shift;
        if (v > limit || v < -limit) return -1;
        v *= (1LL << shift);
    }
    *out = v;
    return 0;
}

int opts_checked_bytes(const char *what, long long count, size_t elem_size, int nbufs,
                       unsigned long long limit, size_t *bytes, char *err, size_t errlen)
{
    if (count < 0 || nbufs < 0) {
        set_err(err, errlen, "%s: negative size %lld", what, count);
        return -1;
    }
    unsigned long long c = (unsigned long long)count;
    unsigned long long total = c;
    if (elem_size != 0 && total > ULLONG_MAX / elem_size) goto overflow;
    total *= elem_size;
    if (nbufs != 0 && total > ULLONG_MAX / (unsigned)nbufs) goto overflow;
    unsigned long long all = total * (unsigned)nbufs;
    if (total > SIZE_MAX || all > SIZE_MAX) goto overflow;
    if (limit && all > limit) {
        set_err(err, errlen, "%s=%lld needs %llu bytes, more than the limit of %llu bytes",
                what, count, all, limit);
        return -1;
    }
    *bytes = (size_t)total;
    return 0;
overflow:
    set_err(err, errlen, "%s=%lld: buffer size overflows", what, count);
    return -1;
}

/* The common options, described in the same table format as a sample's own.
 * Their destinations are filled in by opts_parse. */
enum { COMMON_HELP, COMMON_DEVICE, COMMON_QUICK, COMMON_JSON, COMMON_REPS, COMMON_SEED, N_COMMON };

static const char *const common_names[N_COMMON] = {"help", "device", "quick", "json", "reps", "seed"};

static const opt_spec *find_extra(const opts_config *cfg, const char *name, size_t len)
{
    for (int i = 0; i < cfg->n_extra; i++) {
        const char *n = cfg->extra[i].name;
        if (strlen(n) == len && strncmp(n, name, len) == 0) return &cfg->extra[i];
    }
    return NULL;
}

static int find_common(const char *name, size_t len)
{
    for (int i = 0; i < N_COMMON; i++)
        if (strlen(common_names[i]) == len && strncmp(common_names[i], name, len) == 0) return i;
    return -1;
}

static int check_choice(const char *choices, const char *value)
{
    size_t vl = strlen(value);
    const char *c = choices;
    while (*c) {
        const char *bar = strchr(c, '|');
        size_t l = bar ? (size_t)(bar - c) : strlen(c);
        if (l == vl && strncmp(c, value, l) == 0) return 0;
        if (!bar) break;
        c = bar + 1;
    }
    return -1;
}

static int parse_int_option(const char *name, const char *value, long long lo, long long hi,
                            long long *out, char *err, size_t errlen)
{
    long long v;
    if (value[0] == '\0') {
        set_err(err, errlen, "--%s needs a value", name);
        return -1;
    }
    if (opts_parse_int(value, &v) != 0) {
        set_err(err, errlen, "--%s=%s: not an integer (or too large)", name, value);
        return -1;
    }
    if (v < lo || v > hi) {
        set_err(err, errlen, "--%s=%s: out of range [%lld, %lld]", name, value, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int opts_parse(const opts_config *cfg, int argc, char **argv, common_opts *out,
               char *err, size_t errlen)
{
    common_opts o = {0, 0, 0, 0, 0, OPTS_DEFAULT_REPS, OPTS_DEFAULT_SEED};
    int help = 0;
    if (errlen) err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            set_err(err, errlen, "unexpected argument '%s' (options look like --name=value)", arg);
            return -1;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const char *value = eq ? eq + 1 : NULL;

        int ci = find_common(name, len);
        const opt_spec *spec = ci < 0 ? find_extra(cfg, name, len) : NULL;
        if (ci < 0 && spec == NULL) {
            set_err(err, errlen, "unknown option '--%.*s' (see --help)", (int)len, name);
            return -1;
        }
        int is_flag = (ci == COMMON_HELP || ci == COMMON_QUICK || ci == COMMON_JSON ||
                       (spec && spec->kind == OPT_FLAG));
        if (is_flag) {
            if (value) {
                set_err(err, errlen, "--%.*s takes no value (got '%s')", (int)len, name, value);
                return -1;
            }
        } else if (!value) {
            /* --name value */
            if (i + 1 >= argc) {
                set_err(err, errlen, "--%.*s needs a value", (int)len, name);
                return -1;
            }
            value = argv[++i];
        }

        char oname[64];
        snprintf(oname, sizeof oname, "%.*s", (int)len, name);
        long long v;
        switch (ci) {
        case COMMON_HELP: help = 1; continue;
        case COMMON_QUICK: o.quick = 1; continue;
        case COMMON_JSON: o.json = 1; continue;
        case COMMON_DEVICE:
            o.device_given = 1;
            if (cfg->device_all_ok && strcmp(value, "all") == 0) {
                o.all_devices = 1;
                o.device = 0;
                continue;
            }
            if (parse_int_option(oname, value, 0, 1023, &v, err, errlen)) return -1;
            o.device = (int)v;
            o.all_devices = 0;
            continue;
        case COMMON_REPS:
            if (parse_int_option(oname, value, 1, 100000, &v, err, errlen)) return -1;
            o.reps = (int)v;
            continue;
        case COMMON_SEED:
            if (parse_int_option(oname, value, 0, LLONG_MAX, &v, err, errlen)) return -1;
            o.seed = (unsigned long long)v;
            continue;
        default: break;
        }

        switch (spec->kind) {
        case OPT_FLAG: *(int *)spec->dest = 1; break;
        case OPT_INT:
            if (parse_int_option(oname, value, spec->min, spec->max, &v, err, errlen)) return -1;
            *(long long *)spec->dest = v;
            break;
        case OPT_STRING:
            if (value[0] == '\0') {
                set_err(err, errlen, "--%s needs a value", oname);
                return -1;
            }
            if (spec->choices && check_choice(spec->choices, value) != 0) {
                set_err(err, errlen, "--%s=%s: not one of %s", oname, value, spec->choices);
                return -1;
            }
            *(const char **)spec->dest = value;
            break;
        }
    }
    *out = o;
    return help ? 1 : 0;
}

void opts_usage(const opts_config *cfg, FILE *f)
{
    fprintf(f, "%s: %s\n\nUsage: %s [options]\n\nCommon options:\n", cfg->name, cfg->summary,
            cfg->name);
    fprintf(f, "  %-22s %s\n", "--help", "print this text and exit");
    fprintf(f, "  %-22s %s\n", cfg->device_all_ok ? "--device=N|all" : "--device=N",
            cfg->device_all_ok ? "CUDA device to use, or all of them in turn (default 0)"
                               : "CUDA device to use (default 0)");
    fprintf(f, "  %-22s %s\n", "--quick", "small sizes: sanitizer runs and smoke tests");
    fprintf(f, "  %-22s %s\n", "--json", "print results as JSON lines instead of RESULT lines");
    fprintf(f, "  %-22s %s\n", "--reps=N", "timed repetitions, median reported (default 20, 1..100000)");
    fprintf(f, "  %-22s %s\n", "--seed=N", "seed of the random inputs (default 2026)");
    if (cfg->n_extra > 0) fprintf(f, "\n%s options:\n", cfg->name);
    for (int i = 0; i < cfg->n_extra; i++) {
        const opt_spec *s = &cfg->extra[i];
        char left[96];
        if (s->kind == OPT_FLAG)
            snprintf(left, sizeof left, "--%s", s->name);
        else
            snprintf(left, sizeof left, "--%s=%s", s->name, s->metavar ? s->metavar : "VALUE");
        fprintf(f, "  %-22s %s", left, s->help);
        if (s->kind == OPT_INT) {
            fprintf(f, " (default %lld, %lld..%lld)", *(const long long *)s->dest, s->min, s->max);
        } else if (s->kind == OPT_STRING) {
            const char *d = *(const char *const *)s->dest;
            if (s->choices) fprintf(f, " (%s", s->choices);
            else fprintf(f, " (");
            fprintf(f, "%sdefault %s)", s->choices ? "; " : "", d ? d : "none");
        }
        fputc('\n', f);
    }
    fprintf(f, "\nIntegers: 1000, 64K, 256M, 1G, 2^28, 2^20+1. Exit codes: 0 PASS, 1 FAIL or bad "
               "argument, 2 WAIVED (no usable CUDA device).\n");
    if (cfg->notes) fprintf(f, "\n%s\n", cfg->notes);
}

void opts_parse_or_exit(const opts_config *cfg, int argc, char **argv, common_opts *out)
{
    char err[256];
    int rc = opts_parse(cfg, argc, argv, out, err, sizeof err);
    if (rc == 1) {
        opts_usage(cfg, stdout);
        exit(0);
    }
    if (rc < 0) {
        fprintf(stderr, "%s: error: %s\n", cfg->name, err);
        fprintf(stderr, "Run '%s --help' for the options.\n", cfg->name);
        printf("%s: FAIL (bad argument)\n", cfg->name);
        exit(1);
    }
}
