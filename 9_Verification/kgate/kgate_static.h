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
#include <stdint.h>

#include "rules.h"

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
    int needs_bf16_header;/* uses __nv_bfloat16 without including cuda_bf16.h */
    int is_torch;         /* written against PyTorch (torch::Tensor, <torch/...>) */
    int timed_out;        /* a step of the scan ran out of its time (nvcc's preprocessing
                             for the hidden-code check): the gate's failure, not the
                             candidate's; parse_error says which */
    double seconds;       /* time spent in the static track */
} kg_static_result;

/* What the scan knows about the run (all optional). */
typedef struct {
    /* the task's launcher as the contract writes it ("void launch(const
     * float* x, float* y, int n, cudaStream_t stream)"): KG-LAUNCH-SIGNATURE */
    const char *launch_signature;
    /* a PyTorch candidate's entry function (default "forward") */
    const char *torch_entry;
    /* the architectures the gate compiles for, as --arch gives them ("90",
     * "90,100"; default "90"): nvcc's device pass is compared for each */
    const char *arch;
} kg_scan_opts;

/* Load a candidate file: a .cu/.cuh/.cpp file as it is, or a Markdown answer
 * (.md) whose fenced code blocks tagged cuda, cu, cpp or c++ are concatenated
 * in order. Returns malloc'd NUL-terminated source, or NULL with a reason in
 * err (empty file, no code block, not text, larger than max_bytes, ...). */
char *kg_load_candidate(const char *path, size_t max_bytes, char *err, size_t errlen);

/* Run the static track on extracted source. `name` is used in messages.
 * Returns 0 when the scan ran (findings in *out, even if parsing failed),
 * -1 on an internal error (message in out->parse_error). */
int kg_static_scan(const char *source, const char *name, kg_static_result *out);
int kg_static_scan_ex(const char *source, const char *name, const kg_scan_opts *o,
                      kg_static_result *out);

/* Source with the auto-fixes applied: #include <cuda_fp16.h> prepended when
 * needs_half_header, <cuda_bf16.h> when needs_bf16_header, then "#line 1"
 * (line numbers unchanged). malloc'd; the caller frees. */
char *kg_static_fixed_source(const char *source, const kg_static_result *r);

/* What the gate compiles: the repairs (half: the headers of __half, bf16:
 * those of __nv_bfloat16), then `#line 1 "display_name"`, then the source,
 * so the compiler's messages name the candidate's own file and line (for a
 * Markdown answer, the line in the answer). Quotes, backslashes and control
 * characters in the name become '_'. malloc'd; the caller frees. */
char *kg_compile_source(const char *source, const char *display_name, int half, int bf16);

/* 1 when the source is written against PyTorch (<torch/...>, <ATen/...>,
 * torch::Tensor, at::Tensor): the gate builds it with load_inline. */
int kg_is_torch_source(const char *src);

/* 1 when the file starts with a UTF-8 byte-order mark (kg_load_candidate
 * drops it; the gate reports it). */
int kg_file_has_bom(const char *path);

void kg_static_free(kg_static_result *r);

/* Kills the nvcc runs a scan has in flight (async-signal-safe: for a
 * deadline's signal handler, build/libexec/kgate/kgate-scan). */
void kg_static_abort(void);

/* The include policy (precheck.c): 1 when the source includes something
 * other than the toolkit's and the system's headers (an absolute path, a
 * name with .., a computed include, #include_next, #import, #embed); the
 * reason and its line are returned. Read as the compilers read the text
 * (trigraphs, digraphs, splices, comments). kg_static_scan applies it first
 * (rule KG-INCLUDE, P0) and the gate before anything opens the file. */
int kg_include_check(const char *src, char *why, size_t len, int *line);

/* What the sandboxed scan (build/libexec/kgate/kgate-scan) sends back: one record, written
 * whole. The gate validates every field (kg_static_msg_valid) before use.
 * Counts, worst and reason are under the run's policy; every hit carries its
 * default severity too, so the report can say what each profile decides. */
#define KG_STATIC_MSG_MAGIC 0x6b677364u
#define KG_MSG_HITS 48
typedef struct {
    uint16_t rule;        /* index in the rule table (rules.h) */
    uint8_t sev;          /* under the default policy */
    uint8_t eff;          /* under the run's policy */
    int32_t line;
    char msg[200];
} kg_static_hit;
typedef struct {
    unsigned magic;
    int rc, worst, parsed, is_external, needs_half, needs_bf16, is_torch, policy;
    /* 1: the scan ran out of time (its own deadline, or nvcc's preprocessing
     * for the hidden-code check): no verdict on the candidate; the gate
     * retries, then reports its own failure (SKIPPED), never the candidate's L1.
     * rc is -1 then, and parse_error says what timed out. */
    int timed_out;
    int n_p0, n_p1, n_p2, n_hits;   /* n_hits <= KG_MSG_HITS; the counts cover every finding */
    char reason[400];
    char parse_error[256];
    kg_static_hit hits[KG_MSG_HITS];
} kg_static_msg;
void kg_static_msg_from(const kg_static_result *r, int rc, int policy, kg_static_msg *m);
/* 1 when well-formed (magic, ranges, strings NUL-terminated; control bytes
 * in strings are replaced in place). */
int kg_static_msg_valid(kg_static_msg *m);

/* Highest severity found: 0 (P0) .. 2 (P2), or 3 when there are no findings. */
int kg_static_worst(const kg_static_result *r);
/* The same under a policy profile (rules.h). */
int kg_static_worst_policy(const kg_static_result *r, int policy);

#endif /* KGATE_STATIC_H */
