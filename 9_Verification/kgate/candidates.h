/* kgate's candidates and labels: collecting the candidate files under the
 * paths given, a candidate's task, the labels file's problems, and the
 * small file helpers the pipeline uses (scratch folders, notes). */
#ifndef KGATE_CANDIDATES_H
#define KGATE_CANDIDATES_H
#include <stddef.h>
#include "kg_report.h"
#include "tasks.h"

#define MAX_CANDS 4096
#define MAX_SOURCE_BYTES (1u << 20)   /* 1 MiB: a bigger file is not a kernel answer */

int real_path_into(const char *p, char *out, size_t len);
/* 0, -1 (unreadable), -2 (a symbolic link to a folder: not followed) */
int collect(const char *path, char **out, int *n, char *labels_guess, size_t lglen, char *lab_dir, size_t ldlen);
const kg_task *task_from_source(const char *src, char *name, size_t len);
int write_text(const char *path, const char *text);
void sanitize(const char *in, char *out, size_t len);
void remove_tree(const char *path, int depth);
void add_note(kg_cand *c, const char *fmt, const char *a);
int labels_problems(const char *labels_path, int had_bom, const kg_label *l, int n);

#endif
