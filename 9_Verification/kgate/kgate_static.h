/* kgate_static.h: the interface between the gate's two tracks.
 *
 * The static track (static_scan.c, markdown.c) reads a candidate, extracts
 * its CUDA source, parses it into an AST with libclang and applies the rules.
 * The dynamic track and the kgate command (main.c, dynamic.c, ...) call it
 * through these functions only.
 */
#ifndef KGATE_STATIC_H
#define KGATE_STATIC_H

#include <stddef.h>

typedef enum { KG_P0 = 0, KG_P1 = 1, KG_P2 = 2 } kg_severity;

typedef struct {
    char rule[32];        /* rule id, e.g. "KG-IDX-THREADONLY" */
    kg_severity sev;      /* P0 reject, P1 check closely, P2 advice */
    int line;             /* 1-based line in the extracted source, 0 if none */
    char message[256];
} kg_finding;

typedef struct {
    kg_finding *items;
    int n, cap;
    int parsed;           /* 1 if libclang produced a usable AST */
    char parse_error[256];/* first error when parsed == 0 (or a fatal one) */
    int n_kernels;        /* __global__ functions defined */
    int has_launch;       /* extern "C" launch(...) defined */
    int is_external;      /* calls cuBLAS/CUB and defines no kernel */
    int needs_half_header;/* uses __half/half2 without including cuda_fp16.h */
    double seconds;       /* time spent in the static track */
} kg_static_result;

/* Load a candidate file: a .cu/.cuh/.cpp file as it is, or a Markdown answer
 * (.md) whose fenced code blocks tagged cuda, cu, cpp or c++ are concatenated
 * in order. Returns malloc'd NUL-terminated source, or NULL with a reason in
 * err (empty file, no code block, not text, larger than max_bytes, ...). */
char *kg_load_candidate(const char *path, size_t max_bytes, char *err, size_t errlen);

/* Run the static track on extracted source. `name` is used in messages.
 * Returns 0 when the scan ran (findings in *out, even if parsing failed),
 * -1 on an internal error (message in out->parse_error). */
int kg_static_scan(const char *source, const char *name, kg_static_result *out);

/* Source with the auto-fixes applied (today: #include <cuda_fp16.h> prepended
 * when needs_half_header). malloc'd; the caller frees. */
char *kg_static_fixed_source(const char *source, const kg_static_result *r);

void kg_static_free(kg_static_result *r);

/* The include policy (precheck.c): 1 when the source includes something
 * other than the toolkit's and the system's headers (an absolute path, a
 * name with .., a computed include, #include_next, #import, #embed); the
 * reason and its line are returned. Read as the compilers read the text
 * (trigraphs, digraphs, splices, comments). kg_static_scan applies it first
 * (rule KG-INCLUDE, P0) and the gate before anything opens the file. */
int kg_include_check(const char *src, char *why, size_t len, int *line);

/* What the sandboxed scan (bin/kgate-scan) sends back: one record, written
 * whole. The gate validates every field (kg_static_msg_valid) before use. */
#define KG_STATIC_MSG_MAGIC 0x6b677363u
typedef struct {
    unsigned magic;
    int rc, worst, parsed, is_external, needs_half, n_p0, n_p1, n_p2;
    char rules[600];
    char reason[400];
    char parse_error[256];
} kg_static_msg;
void kg_static_msg_from(const kg_static_result *r, int rc, kg_static_msg *m);
/* 1 when well-formed (magic, ranges, strings NUL-terminated; control bytes
 * in strings are replaced in place). */
int kg_static_msg_valid(kg_static_msg *m);

/* Highest severity found: 0 (P0) .. 2 (P2), or 3 when there are no findings. */
int kg_static_worst(const kg_static_result *r);

#endif /* KGATE_STATIC_H */
