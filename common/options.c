/* options.c: strict parsing of the shared command line (see options.h). */
#include "options.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- integers ------------------------------------------------------------ */

#define TERM_MAX (1ULL << 63) /* the magnitude of LLONG_MIN */

/* One term: 2^E, or digits with an optional binary suffix (K M G T, each
 * optionally followed by iB: 64K = 64KiB = 65536). Its magnitude, at most
 * 2^63, goes to *out; *pp moves past it. -1 if there is none or it is larger. */
static int parse_term(const char **pp, unsigned long long *out)
{
    const char *p = *pp;
    if (!isdigit((unsigned char)*p)) return -1;
    unsigned long long v = 0;
    while (isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (TERM_MAX - d) / 10) return -1;
        v = v * 10 + d;
        p++;
    }
    if (*p == '^') {
        /* 2^E only: a power of another base is almost always a typo */
        if (v != 2 || p - *pp != 1 || !isdigit((unsigned char)p[1])) return -1;
        unsigned long long e = 0;
        p++;
        while (isdigit((unsigned char)*p)) {
            e = e * 10 + (unsigned)(*p - '0');
            if (e > 63) return -1;
            p++;
        }
        *out = 1ULL << e;
        *pp = p;
        return 0;
    }
    int shift = 0;
    switch (*p) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'B' || p[1] == 'b')) p += 2;
        if (v > (TERM_MAX >> shift)) return -1;
        v <<= shift;
    }
    *out = v;
    *pp = p;
    return 0;
}

/* [sign] term { (+|-) term }, the total within a long long. */
int opts_parse_int(const char *text, long long *out)
{
    if (text == NULL || *text == '\0') return -1;
    const char *p = text;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = (*p++ == '-');
    __int128 total = 0;
    for (;;) {
        unsigned long long t;
        if (parse_term(&p, &t) != 0) return -1;
        total += neg ? -(__int128)t : (__int128)t;
        if (*p == '\0') break;
        if (*p != '+' && *p != '-') return -1;
        neg = (*p++ == '-');
    }
    if (total > LLONG_MAX || total < LLONG_MIN) return -1;
    *out = (long long)total;
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

/* ---- names: choices, variants, suggestions -------------------------------- */

int opts_join_choices(char *buf, size_t len, const char *first, const void *first_name,
                      size_t stride, int n)
{
    if (len == 0) return -1;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = -1; i < n; i++) {
        const char *s = i < 0 ? first
                              : *(const char *const *)((const char *)first_name + (size_t)i * stride);
        if (s == NULL || *s == '\0') continue;
        size_t sl = strlen(s);
        if (used + (used ? 1 : 0) + sl + 1 > len) {
            buf[0] = '\0';
            return -1;
        }
        if (used) buf[used++] = '|';
        memcpy(buf + used, s, sl + 1);
        used += sl;
    }
    return (int)used;
}

int opts_variant_runs(const char *chosen, const char *name, int is_reference)
{
    return is_reference || chosen == NULL || strcmp(chosen, "all") == 0 || strcmp(chosen, name) == 0;
}

int opts_variant_runs_cpu(const char *chosen)
{
    return chosen == NULL || strcmp(chosen, "all") == 0 || strcmp(chosen, "cpu") == 0;
}

/* Edit distance with adjacent transpositions (optimal string alignment). */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXL = 64 };
    if (la > MAXL || lb > MAXL) return (size_t)-1;
    size_t d[MAXL + 1][MAXL + 1];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *opts_closest(const char *text, size_t len, const char *const *names, int n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (int i = 0; i < n; i++) {
        if (names[i] == NULL) continue;
        size_t nl = strlen(names[i]);
        size_t d = edit_distance(text, len, names[i], nl);
        /* close: a third of the name's letters wrong (at least one), or the
         * text is the start of the name ("--var" for --variant) */
        int close = d <= (nl + 2) / 3 || (len >= 2 && len < nl && strncmp(text, names[i], len) == 0);
        if (close && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

/* ---- the table of options ------------------------------------------------- */

enum { COMMON_HELP, COMMON_DEVICE, COMMON_QUICK, COMMON_JSON, COMMON_REPS, COMMON_SEED, N_COMMON };

static const char *const common_names[N_COMMON] = {"help", "device", "quick", "json", "reps", "seed"};

#define MAX_EXTRA 128

/* An entry of the table that is an option of the sample's own (not an
 * OPT_COMMON_* entry, which changes a common option). */
static int is_option(const opt_spec *s)
{
    return s->kind == OPT_FLAG || s->kind == OPT_INT || s->kind == OPT_STRING;
}

/* The table's OPT_COMMON_* entry of kind k for common option ci, or NULL. */
static const opt_spec *common_entry(const opts_config *cfg, int ci, opt_kind k)
{
    for (int i = 0; i < cfg->n_extra; i++)
        if (cfg->extra[i].kind == k && cfg->extra[i].name &&
            !strcmp(cfg->extra[i].name, common_names[ci]))
            return &cfg->extra[i];
    return NULL;
}

/* Refused, and not listed: --reps or --seed where they mean nothing. */
static int common_omitted(const opts_config *cfg, int ci)
{
    return ci != COMMON_QUICK && common_entry(cfg, ci, OPT_COMMON_OMIT) != NULL;
}

static int common_listed(const opts_config *cfg, int ci)
{
    return common_entry(cfg, ci, OPT_COMMON_OMIT) == NULL;
}

/* The --help text of common option ci: the sample's, or the default. */
static const char *common_text(const opts_config *cfg, int ci, const char *dflt)
{
    const opt_spec *t = common_entry(cfg, ci, OPT_COMMON_TEXT);
    return t && t->help ? t->help : dflt;
}

static int find_extra(const opts_config *cfg, const char *name, size_t len)
{
    for (int i = 0; i < cfg->n_extra; i++) {
        const char *n = cfg->extra[i].name;
        if (is_option(&cfg->extra[i]) && strlen(n) == len && strncmp(n, name, len) == 0) return i;
    }
    return -1;
}

static int find_common(const opts_config *cfg, const char *name, size_t len)
{
    for (int i = 0; i < N_COMMON; i++)
        if (strlen(common_names[i]) == len && strncmp(common_names[i], name, len) == 0)
            return common_omitted(cfg, i) ? -1 : i;
    return -1;
}

/* Every option name this sample accepts, common ones first. */
static int option_names(const opts_config *cfg, const char **names)
{
    int k = 0;
    for (int i = 0; i < N_COMMON; i++)
        if (common_listed(cfg, i)) names[k++] = common_names[i];
    for (int i = 0; i < cfg->n_extra && i < MAX_EXTRA; i++)
        if (is_option(&cfg->extra[i])) names[k++] = cfg->extra[i].name;
    return k;
}

/* "unknown option '--x'" with the closest name, or the list of names. */
static void unknown_option(const opts_config *cfg, const char *shown, const char *name,
                           size_t len, char *err, size_t errlen)
{
    const char *names[N_COMMON + MAX_EXTRA];
    int k = option_names(cfg, names);
    const char *near = opts_closest(name, len, names, k);
    if (near) {
        set_err(err, errlen, "unknown option '%s' (did you mean --%s?)", shown, near);
        return;
    }
    char list[1024];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < k && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s--%s", i ? " " : "", names[i]);
    set_err(err, errlen, "unknown option '%s' (the options are: %s)", shown, list);
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

static void bad_choice(const opts_config *cfg, const opt_spec *s, const char *value, char *err,
                       size_t errlen)
{
    if (strcmp(s->name, "variant") == 0 && strcmp(value, "cpu") == 0) {
        set_err(err, errlen, "--variant=cpu: %s has no CPU baseline (see --help); the variants "
                "are %s", cfg->name, s->choices);
        return;
    }
    /* the closest choice, if one is close */
    const char *names[64];
    char copies[64][64];
    int k = 0;
    const char *c = s->choices;
    while (*c && k < 64) {
        const char *bar = strchr(c, '|');
        size_t l = bar ? (size_t)(bar - c) : strlen(c);
        snprintf(copies[k], sizeof copies[k], "%.*s", (int)l, c);
        names[k] = copies[k];
        k++;
        if (!bar) break;
        c = bar + 1;
    }
    const char *near = opts_closest(value, strlen(value), names, k);
    if (near)
        set_err(err, errlen, "--%s=%s: not one of %s (did you mean %s?)", s->name, value,
                s->choices, near);
    else
        set_err(err, errlen, "--%s=%s: not one of %s", s->name, value, s->choices);
}

/* " (2^34)" after a bound that is a power of two from 1024 up, else "". */
static const char *pow2_note(long long v, char *buf, size_t len)
{
    buf[0] = '\0';
    if (v >= 1024 && (v & (v - 1)) == 0) {
        int e = 0;
        while ((1LL << e) != v) e++;
        snprintf(buf, len, " = 2^%d", e);
    }
    return buf;
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
        set_err(err, errlen, "--%s=%s: not an integer, or too large (integers look like 1000, "
                "64K, 1MiB, 2^28, 4G+1; K = 1024)", name, value);
        return -1;
    }
    if (v < lo || v > hi) {
        char a[32], b[32];
        set_err(err, errlen, "--%s=%s: out of range [%lld%s, %lld%s]", name, value, lo,
                pow2_note(lo, a, sizeof a), hi, pow2_note(hi, b, sizeof b));
        return -1;
    }
    *out = v;
    return 0;
}

/* The table itself: names unique and well formed, choices present. */
static int check_config(const opts_config *cfg, char *err, size_t errlen)
{
    if (cfg->n_extra < 0 || cfg->n_extra > MAX_EXTRA || (cfg->n_extra > 0 && !cfg->extra)) {
        set_err(err, errlen, "internal error: %d options in the table (at most %d)", cfg->n_extra,
                MAX_EXTRA);
        return -1;
    }
    for (int i = 0; i < cfg->n_extra; i++) {
        const opt_spec *s = &cfg->extra[i];
        if (!s->name || !s->name[0] || s->name[0] == '-' || strchr(s->name, '=') ||
            strlen(s->name) > 60) {
            set_err(err, errlen, "internal error: option %d has a bad name", i);
            return -1;
        }
        size_t l = strlen(s->name);
        int ci = -1;
        for (int c = 0; c < N_COMMON; c++)
            if (!strcmp(common_names[c], s->name)) ci = c;
        if (!is_option(s)) {
            /* OPT_COMMON_OMIT of quick, reps or seed; OPT_COMMON_TEXT of any but help */
            int fits = s->kind == OPT_COMMON_OMIT
                           ? (ci == COMMON_QUICK || ci == COMMON_REPS || ci == COMMON_SEED)
                           : (s->kind == OPT_COMMON_TEXT && ci > COMMON_HELP && s->help);
            if (!fits) {
                set_err(err, errlen, "internal error: table entry %d (--%s) changes no common "
                        "option that it may change", i, s->name);
                return -1;
            }
            continue;
        }
        if (ci >= 0) {
            set_err(err, errlen, "internal error: --%s is a common option", s->name);
            return -1;
        }
        if (find_extra(cfg, s->name, l) != i) {
            set_err(err, errlen, "internal error: --%s is in the table twice", s->name);
            return -1;
        }
        if (s->kind == OPT_STRING && s->choices && !s->choices[0]) {
            set_err(err, errlen, "internal error: --%s has an empty list of choices (did "
                    "opts_join_choices run out of room?)", s->name);
            return -1;
        }
        if (s->kind == OPT_INT && s->min > s->max) {
            set_err(err, errlen, "internal error: --%s has min > max", s->name);
            return -1;
        }
    }
    return 0;
}

static int is_help(const char *a)
{
    return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int opts_parse(const opts_config *cfg, int argc, char **argv, common_opts *out,
               char *err, size_t errlen)
{
    common_opts o = {0, 0, 0, 0, 0, OPTS_DEFAULT_REPS, OPTS_DEFAULT_SEED};
    if (errlen) err[0] = '\0';

    /* -h or --help anywhere wins: nothing else is parsed, so a bad option
     * before it does not hide the help, and the defaults shown are the
     * table's own. */
    for (int i = 1; i < argc; i++)
        if (is_help(argv[i])) return 1;

    if (check_config(cfg, err, errlen)) return -1;

    int seen_common[N_COMMON] = {0};
    unsigned char seen_extra[MAX_EXTRA] = {0};

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0') {
            /* -name: one dash short; suggest the option if there is one */
            const char *name = arg + 1;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            if (find_common(cfg, name, len) >= 0 || find_extra(cfg, name, len) >= 0)
                set_err(err, errlen, "unexpected argument '%s' (options start with two dashes: "
                        "--%s)", arg, name);
            else
                set_err(err, errlen, "unexpected argument '%s' (options look like --name=value)",
                        arg);
            return -1;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            set_err(err, errlen, "unexpected argument '%s' (options look like --name=value)", arg);
            return -1;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const char *value = eq ? eq + 1 : NULL;

        int ci = find_common(cfg, name, len);
        int ei = ci < 0 ? find_extra(cfg, name, len) : -1;
        const opt_spec *spec = ei >= 0 ? &cfg->extra[ei] : NULL;
        if (ci < 0 && spec == NULL) {
            char shown[96];
            snprintf(shown, sizeof shown, "--%.*s", (int)(len < 80 ? len : 80), name);
            for (int c = 0; c < N_COMMON; c++)
                if (strlen(common_names[c]) == len && !strncmp(common_names[c], name, len)) {
                    set_err(err, errlen, "%s means nothing to %s (see --help)", shown, cfg->name);
                    return -1;
                }
            unknown_option(cfg, shown, name, len, err, errlen);
            return -1;
        }
        char oname[64];
        snprintf(oname, sizeof oname, "%.*s", (int)len, name);

        int *seen = ci >= 0 ? &seen_common[ci] : NULL;
        if ((seen && *seen) || (!seen && seen_extra[ei])) {
            set_err(err, errlen, "--%s given twice (each option at most once)", oname);
            return -1;
        }
        if (seen) *seen = 1;
        else seen_extra[ei] = 1;

        int is_flag = (ci == COMMON_HELP || ci == COMMON_QUICK || ci == COMMON_JSON || (spec && spec->kind == OPT_FLAG));
        if (is_flag) {
            if (value) {
                set_err(err, errlen, "--%s takes no value (got '%s')", oname, value);
                return -1;
            }
        } else if (!value) {
            /* --name value; a following option is not taken for the value */
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0) {
                set_err(err, errlen, "--%s needs a value (--%s=VALUE or --%s VALUE)", oname, oname,
                        oname);
                return -1;
            }
            value = argv[++i];
        }

        long long v;
        switch (ci) {
        case COMMON_HELP: return 1; /* not reached: the scan above found it */
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
                bad_choice(cfg, spec, value, err, errlen);
                return -1;
            }
            *(const char **)spec->dest = value;
            break;
        default: break;   /* OPT_COMMON_*: never found as an option */
        }
    }
    *out = o;
    return 0;
}

/* ---- --help ------------------------------------------------------------------ */

static void usage_line(FILE *f, const char *left, const char *text)
{
    fprintf(f, "  %-22s %s\n", left, text);
}

void opts_usage(const opts_config *cfg, FILE *f)
{
    fprintf(f, "%s: %s\n\nUsage: %s [options]\n\nCommon options:\n", cfg->name, cfg->summary,
            cfg->name);
    usage_line(f, "-h, --help", "print this text and exit 0 (wherever it is on the line)");
    usage_line(f, cfg->device_all_ok ? "--device=N|all" : "--device=N",
               common_text(cfg, COMMON_DEVICE,
                           cfg->device_all_ok ? "CUDA device to use, or all of them in turn (default 0)"
                                              : "CUDA device to use (default 0)"));
    if (common_listed(cfg, COMMON_QUICK))
        usage_line(f, "--quick", common_text(cfg, COMMON_QUICK,
                                             "small sizes: sanitizer runs and smoke tests"));
    usage_line(f, "--json", common_text(cfg, COMMON_JSON,
                                        "print results as JSON lines instead of RESULT lines"));
    if (common_listed(cfg, COMMON_REPS))
        usage_line(f, "--reps=N", common_text(cfg, COMMON_REPS,
                                              "timed repetitions, median reported (default 20, "
                                              "1..100000)"));
    if (common_listed(cfg, COMMON_SEED))
        usage_line(f, "--seed=N", common_text(cfg, COMMON_SEED,
                                              "seed of the random inputs (default 2026)"));

    const opt_spec *variant = NULL;
    int n_own = 0;
    for (int i = 0; i < cfg->n_extra; i++) n_own += is_option(&cfg->extra[i]);
    if (n_own > 0) fprintf(f, "\n%s options:\n", cfg->name);
    for (int i = 0; i < cfg->n_extra; i++) {
        const opt_spec *s = &cfg->extra[i];
        if (!is_option(s)) continue;
        if (s->kind == OPT_STRING && !strcmp(s->name, "variant")) variant = s;
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
    fprintf(f, "\nValues: --name=VALUE or --name VALUE; each option at most once.\n"
               "Integers: 1000, 64K, 256M, 1G, 1MiB, 2^28, 2^20+1, 4G+1, 1GiB-1: K = KiB = 1024,\n"
               "M = MiB = 2^20, G = GiB = 2^30, T = TiB = 2^40 (no decimal KB or MB).\n");
    if (variant) {
        int has_cpu = variant->choices && check_choice(variant->choices, "cpu") == 0;
        fprintf(f, "--variant: all (the default) checks and times every variant; NAME only that "
                   "one,\nand the reference it is compared with, which always runs; ");
        if (has_cpu)
            fprintf(f, "cpu only the CPU\nbaseline (and the reference).\n");
        else
            fprintf(f, "cpu would be\nthe CPU baseline, which %s does not have.\n", cfg->name);
    }
    fprintf(f, "Exit codes: 0 PASS, 1 FAIL or bad argument, 2 WAIVED (no usable CUDA device).\n");
    if (cfg->notes) fprintf(f, "\n%s\n", cfg->notes);
}

void opts_parse_or_exit(const opts_config *cfg, int argc, char **argv, common_opts *out)
{
    char err[1200];
    int rc = opts_parse(cfg, argc, argv, out, err, sizeof err);
    if (rc == 1) {
        opts_usage(cfg, stdout);
        exit(0);
    }
    if (rc < 0) {
        fprintf(stderr, "%s: error: %s\n", cfg->name, err);
        fprintf(stderr, "Run '%s --help' for the options.\n", cfg->name);
        /* --json anywhere on the line: stdout carries only JSON, so the
         * closing line is a record like report_finish()'s */
        int json = 0;
        for (int i = 1; i < argc; i++) json |= !strcmp(argv[i], "--json");
        if (json) {
            result_rec r;
            char line[1600];
            r.n = 0;
            rec_str(&r, "sample", cfg->name);
            rec_str(&r, "status", "FAIL");
            rec_str(&r, "reason", "bad argument");
            if (rec_format_json(&r, line, sizeof line) > 0) printf("%s\n", line);
        } else {
            printf("%s: FAIL (bad argument)\n", cfg->name);
        }
        exit(1);
    }
}
