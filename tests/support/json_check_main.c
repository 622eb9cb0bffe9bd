/* json_check: validate a JSON document or JSON lines from a file (or stdin "-"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_valid.h"

int main(int argc, char **argv)
{
    int lines = argc > 1 && strcmp(argv[1], "--lines") == 0;
    const char *path = argc > 1 + lines ? argv[1 + lines] : "-";
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "json_check: cannot open %s\n", path);
        return 2;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    if (!buf) return 2;
    char err[256];
    int ok = lines ? json_lines_valid(buf, n, err, sizeof err) : json_valid(buf, n, err, sizeof err);
    if (!ok) fprintf(stderr, "json_check: %s: invalid JSON: %s\n", path, err);
    free(buf);
    return ok ? 0 : 1;
}
