/* kgate's candidates and labels (see candidates.h): which files under a
 * path are candidates, the task a source names, the labels file's
 * problems, and the scratch-folder helpers. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynamic.h"
#include "judge.h"
#include "kg_report.h"
#include "kgate_static.h"
#include "ncu.h"
#include "proto.h"
#include "rules.h"
#include "sandbox.h"
#include "torch_adapter.h"
#include "tasks.h"
#include "candidates.h"

/* realpath(3) into a buffer of len bytes. realpath(p, buf) with a buffer under
 * PATH_MAX aborts under _FORTIFY_SOURCE (the GPU machine's compiler enables it
 * by default): let realpath allocate, then copy. 0 on success, -1 otherwise
 * (including a result that does not fit). */
int real_path_into(const char *p, char *out, size_t len)
{
    char *r = realpath(p, NULL);
    if (!r) return -1;
    size_t n = strlen(r);
    if (n >= len) { free(r); return -1; }
    memcpy(out, r, n + 1);
    free(r);
    return 0;
}

static int is_candidate_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    if (!dot || n[0] == '.') return 0;
    return !strcmp(dot, ".cu") || !strcmp(dot, ".md") || !strcmp(dot, ".cuh") ||
           !strcmp(dot, ".cpp");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the candidates under path (all of them: *n may grow past MAX_CANDS,
 * which the caller reports); -1 on an unreadable path, -2 on a symbolic
 * link to a folder. A folder's entries with a candidate's name are taken
 * whatever they are (links, FIFOs...): the loader refuses those by name. */
int collect(const char *path, char **out, int *n, char *labels_guess, size_t lglen, char *lab_dir,
                   size_t ldlen)
{
    struct stat st, ls;
    if (lstat(path, &ls) != 0) return -1;
    /* a link to a folder is not followed (-2: the caller says so); any
     * other non-regular path is a candidate that kg_load_candidate refuses
     * with what it is, a link, a FIFO or a device, in the report */
    if (S_ISLNK(ls.st_mode) && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return -2;
    st = ls;
    if (!S_ISDIR(st.st_mode)) {
        if (*n < MAX_CANDS) out[*n] = strdup(path);
        (*n)++;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int start = *n;
    while ((e = readdir(d)) != NULL) {
        if (!is_candidate_name(e->d_name)) continue;
        if (*n < MAX_CANDS) {
            char *p = (char *)malloc(strlen(path) + strlen(e->d_name) + 2);
            sprintf(p, "%s/%s", path, e->d_name);
            out[*n] = p;
        }
        (*n)++;
    }
    closedir(d);
    if (*n <= MAX_CANDS) qsort(out + start, (size_t)(*n - start), sizeof(char *), cmp_str);
    if (labels_guess[0] == 0) {
        char lp[1024];
        snprintf(lp, sizeof lp, "%s/labels.tsv", path);
        if (access(lp, R_OK) == 0) {
            snprintf(labels_guess, lglen, "%s", lp);
            snprintf(lab_dir, ldlen, "%s", path);
        }
    }
    return 0;
}

/* "// kgate-task: NAME" anywhere in the source; name[] gets what was written */
const kg_task *task_from_source(const char *src, char *name, size_t len)
{
    if (name && len) name[0] = 0;
    const char *p = src ? strstr(src, "kgate-task:") : NULL;
    if (!p) return NULL;
    p += strlen("kgate-task:");
    while (*p == ' ' || *p == '\t') p++;
    char nm[32];
    int i = 0;
    while (i < 31 && (p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9'))) {
        nm[i] = p[i];
        i++;
    }
    nm[i] = 0;
    if (name && len) snprintf(name, len, "%s", nm);
    return kg_task_find(nm);
}

int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

void sanitize(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = ((in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z') ||
                  (in[i] >= '0' && in[i] <= '9') || in[i] == '_' || in[i] == '-') ? in[i] : '_';
    out[i] = 0;
}

/* rm -r of a scratch folder (a few files; no symlinks are followed) */
void remove_tree(const char *path, int depth)
{
    DIR *d = depth < 8 ? opendir(path) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p, depth + 1);
            else unlink(p);
        }
        closedir(d);
    }
    rmdir(path);
}

void add_note(kg_cand *c, const char *fmt, const char *a)
{
    size_t l = strlen(c->notes);
    if (l + 4 >= sizeof c->notes) return;
    if (l) { snprintf(c->notes + l, sizeof c->notes - l, "; "); l += 2; }
    snprintf(c->notes + l, sizeof c->notes - l, fmt, a);
}

/* The labels file's problems, reported, never resolved in silence: a
 * byte-order mark, a file labeled twice, a label for a file that is not
 * there. Returns the number of problems printed. */
int labels_problems(const char *labels_path, int had_bom, const kg_label *l, int n)
{
    int problems = 0;
    if (had_bom) {
        printf("# labels: PROBLEM: %s starts with a UTF-8 byte-order mark (ignored while reading; remove it)\n",
               labels_path);
        problems++;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", labels_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    for (int i = 0; i < n; i++) {
        char ef[1100];   /* the file names, escaped as the report's */
        kg_text_escape(l[i].file, sizeof l[i].file, ef, sizeof ef);
        for (int k = 0; k < i; k++)
            if (!strcmp(l[i].file, l[k].file)) {
                printf("# labels: PROBLEM: %s is labeled twice (%s %s and %s %s): which is meant?\n", ef,
                       l[k].task, kg_verdict_name(l[k].expected), l[i].task, kg_verdict_name(l[i].expected));
                problems++;
                break;
            }
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", dir, l[i].file);
        struct stat ls;
        if (lstat(p, &ls) != 0) {   /* a link is there, even when it leads nowhere */
            printf("# labels: PROBLEM: %s labels %s, which is not in %s\n", labels_path, ef, dir);
            problems++;
        }
    }
    return problems;
}
