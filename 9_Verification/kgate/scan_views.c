/* scan_views.c: what nvcc compiles that clang did not see.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

/* ---- what nvcc compiles that clang did not see --------------------------- */

#define KG_MAX_LINES 200000

/* Lines of the candidate skipped by clang's preprocessor (1 = skipped). */
static int skipped_lines(CXTranslationUnit tu, unsigned char *skip, int nlines)
{
    CXFile f = clang_getFile(tu, "candidate.cu");
    if (!f) return 0;
    CXSourceRangeList *rl = clang_getSkippedRanges(tu, f);
    int any = 0;
    for (unsigned i = 0; rl && i < rl->count; i++) {
        unsigned a = 0, b = 0;
        clang_getSpellingLocation(clang_getRangeStart(rl->ranges[i]), NULL, &a, NULL, NULL);
        clang_getSpellingLocation(clang_getRangeEnd(rl->ranges[i]), NULL, &b, NULL, NULL);
        for (unsigned l = a; l <= b && (int)l < nlines; l++) { skip[l] = 1; any = 1; }
    }
    if (rl) clang_disposeSourceRangeList(rl);
    return any;
}

/* Lines of `path` that put tokens into nvcc's preprocessed output (the
 * device pass with __CUDA_ARCH__, or the host pass without). -1 when nvcc
 * did not run or failed. */
static int nvcc_lines(const char *nvcc, const char *path, int host, unsigned char *mark,
                      int nlines)
{
    char out[512];
    snprintf(out, sizeof out, "%s.%s.ii", path, host ? "host" : "dev");
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) { dup2(nul, 0); dup2(nul, 1); dup2(nul, 2); }
        const char *argv[32];
        int a = 0;
        argv[a++] = nvcc; argv[a++] = "-E"; argv[a++] = "-x"; argv[a++] = "cu"; argv[a++] = "-std=c++17";
        argv[a++] = host ? "-U__CUDA_ARCH__" : "-arch=sm_90";
        char store[4][1100];
        const char *inc[8];
        int ni = extra_includes(inc, 8, store);
        for (int i = 0; i < ni; i++) argv[a++] = inc[i];
        argv[a++] = path; argv[a++] = "-o"; argv[a++] = out; argv[a] = NULL;
        execvp(nvcc, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    FILE *f = fopen(out, "r");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !f) {
        if (f) fclose(f);
        unlink(out);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int in_main = 0;
    long cur = 0;
    size_t plen = strlen(path);
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9') {
            char *q = NULL;
            cur = strtol(line + 2, &q, 10);
            while (q && *q == ' ') q++;
            in_main = q && *q == '"' && !strncmp(q + 1, path, plen) && q[1 + plen] == '"';
            continue;
        }
        if (in_main) {
            for (char *c = line; *c; c++)
                if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') {
                    if (cur > 0 && cur < nlines) mark[cur] = 1;
                    break;
                }
        }
        cur++;
    }
    free(line);
    fclose(f);
    unlink(out);
    return 0;
}

/* The static track must see what nvcc compiles. Lines clang's host pass
 * skipped (#ifndef __clang__, #ifdef __NVCC__, #ifdef __CUDA_ARCH__ ...) are
 * compared with what nvcc's preprocessor keeps; device-side code
 * (__CUDA_ARCH__) is parsed again by clang in device mode and scanned;
 * anything nvcc compiles that neither clang pass sees is hidden from the
 * rules: P0, KG-HIDDEN-CODE. Without nvcc, a skipped block whose condition
 * names a compiler (__clang__, __NVCC__, __CUDACC_VER...) is treated so.
 * Returns 0, or -1 when the text rule was used. */
int hidden_code_check(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts,
                             kg_static_result *out, const token_facts *tf)
{
    int nlines = 2;
    for (const char *p = source; *p; p++) nlines += *p == '\n';
    if (nlines > KG_MAX_LINES) return 0;
    unsigned char *skip = calloc((size_t)nlines, 1), *nv = calloc((size_t)nlines, 1),
                  *dskip = calloc((size_t)nlines, 1);
    int rc = 0;
    if (!skip || !nv || !dskip) goto done;
    if (!skipped_lines(tu, skip, nlines)) goto done;
    const char *nvcc = getenv("KGATE_NVCC");
    if (!nvcc || !*nvcc) nvcc = "nvcc";
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/kgate_hidden_XXXXXX.cu", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(path, 3);
    int ran = 0;
    if (fd >= 0) {
        char *fixed = kg_static_fixed_source(source, out);
        size_t len = fixed ? strlen(fixed) : 0;
        ssize_t w = fixed ? write(fd, fixed, len) : -1;
        close(fd);
        free(fixed);
        if (w == (ssize_t)len) {
            int a = nvcc_lines(nvcc, path, 0, nv, nlines);
            int b = nvcc_lines(nvcc, path, 1, nv, nlines);
            ran = a == 0 && b == 0;
        }
        unlink(path);
    }
    int first = 0, last = 0;
    if (ran) {
        int any_dev = 0;
        for (int l = 1; l < nlines; l++) any_dev |= skip[l] && nv[l];
        if (!any_dev) goto done;
        /* device-side code: clang in device mode */
        char err[256];
        CXTranslationUnit dtu = parse_candidate(source, out->needs_half_header ? "cuda_fp16.h" : NULL,
                                      out->needs_bf16_header ? "cuda_bf16.h" : NULL, 1, err, sizeof err);
        if (dtu) skipped_lines(dtu, dskip, nlines);
        else memset(dskip, 1, (size_t)nlines);
        for (int l = 1; l < nlines; l++)
            if (skip[l] && nv[l] && dskip[l]) {
                if (!first) first = l;
                last = l;
            }
        if (dtu) {
            if (!first) analyze_tu(dtu, source, opts, out, tf, 1);
            clang_disposeTranslationUnit(dtu);
        }
    } else {
        rc = -1;
        /* no nvcc here: judge the directives that open skipped blocks */
        static const char *const compilers[] = {"__clang__", "__NVCC__", "__CUDACC_VER", "__NVCOMPILER",
                                                "__GNUC__", "__CUDACC_RTC__", NULL};
        const char *p = source;
        for (int l = 1; *p && l < nlines; l++) {
            const char *eol = strchr(p, '\n');
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            if (l + 1 < nlines && skip[l + 1] && !skip[l]) {
                for (int k = 0; compilers[k]; k++) {
                    const char *hit = strstr(p, compilers[k]);
                    if (hit && hit < p + n) {
                        first = l + 1;
                        last = l + 1;
                        while (last + 1 < nlines && skip[last + 1]) last++;
                        break;
                    }
                }
            }
            if (first || !eol) break;
            p = eol + 1;
        }
    }
    if (first)
        add_finding(out, "KG-HIDDEN-CODE", -1, first,
                    "lines %d-%d are compiled by nvcc but hidden from the static track "
                    "(a conditional on the compiler, e.g. #ifndef __clang__): the gate refuses what it "
                    "cannot read", first, last);
done:
    free(skip);
    free(nv);
    free(dskip);
    return rc;
}

