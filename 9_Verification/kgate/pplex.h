/* pplex.h: a candidate's text read as the compilers' preprocessors read it.
 *
 * The include policy (precheck.c) and the static track's check that it sees
 * what nvcc compiles (scan_views.c) must find every directive exactly where
 * gcc (nvcc's preprocessor) and clang find it, whatever lexing trick the
 * text plays: trigraphs, splices, comments, string and raw string literals,
 * digit separators, odd line endings. pp_read reads it once, in the order of
 * the translation phases, and lists the directives; two readings (with and
 * without trigraphs: nvcc's C++14 compile reads them, C++17 does not) can be
 * compared token by token. Host-only C11, linked into the gate, the scan and
 * the tests.
 */
#ifndef KGATE_PPLEX_H
#define KGATE_PPLEX_H

#include <stddef.h>

typedef struct {
    int line, last_line;   /* physical lines of the '#' and of the directive's end */
    size_t start;          /* offset in the source of its first character (the '#', '%:', '??=') */
    size_t end;            /* offset just past the newline that ends it (or the source's length) */
    char name[32];         /* "include", "if", "define", ...; "" for a null directive; the
                              digits for a line marker (# 12 "file", as gcc writes them) */
    int line_marker;       /* 1 for # <digits> ...: a #line in gcc's form */
    /* include, include_next, import, embed: the name as written, verbatim */
    char header[256];
    char close;            /* '>' or '"'; 0 when the name is computed (a macro) */
    int header_unterminated;
    char text[512];        /* the directive after its name: comments as one space (cut) */
} pp_directive;

typedef struct {
    pp_directive *dir;
    int n_dir;
    /* the token sequence: each token's kind and, but for literals, its
     * spelling; directives start with "#name" and end with a newline token */
    char *sig;
    size_t sig_len;
    int *sig_line;         /* the physical line of each token (by token index) */
    int n_tok;
    int n_lines;           /* physical lines (a lone \r ends a line, as in gcc and clang) */
    /* what the gate refuses to read: a raw string literal that is
     * unterminated, has a bad delimiter, is spelled with a splice or a
     * trigraph, or spans lines inside a directive (gcc ends the directive,
     * clang does not) */
    int error_line;
    char error[200];
} pp_text;

/* Read `src` (NUL-terminated); trigraphs: 1 to replace them (C++14's
 * reading). Returns 0, or -1 when out of memory (everything freed). */
int pp_read(const char *src, int trigraphs, pp_text *out);
void pp_free(pp_text *t);

/* The first token where two readings differ: its line in `a` (1 when they
 * differ at the start), 0 when they read the same. */
int pp_first_difference(const pp_text *a, const pp_text *b);

#endif /* KGATE_PPLEX_H */
