/* kgate-scan: the static track in a sandbox of its own (bin/kgate-scan).
 *
 *   kgate-scan FILE NAME      (inside the sandbox: FILE is /scratch/cand.src)
 *
 * Reads the extracted candidate source, runs the static track
 * (kg_static_scan: the include policy first, then libclang and the rules,
 * then the hidden-code check against nvcc's own preprocessing) and writes one
 * kg_static_msg record to fd 3. libclang parses hostile text here: a
 * preprocessor bomb or a crash costs this process, which the sandbox's CPU,
 * memory and wall-clock limits end, never the gate. The gate validates the
 * record before using any of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kgate_static.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: kgate-scan FILE NAME (result record on fd 3)\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    size_t cap = 1 << 16, n = 0;
    char *src = malloc(cap + 1);
    for (;;) {
        if (!src) return 1;
        size_t got = fread(src + n, 1, cap - n, f);
        n += got;
        if (n < cap || n > (2u << 20)) break;
        cap *= 2;
        src = realloc(src, cap + 1);
    }
    fclose(f);
    src[n] = 0;
    kg_static_result r;
    memset(&r, 0, sizeof r);
    int rc = kg_static_scan(src, argv[2], &r);
    kg_static_msg m;
    kg_static_msg_from(&r, rc, &m);
    ssize_t w = write(3, &m, sizeof m);
    kg_static_free(&r);
    free(src);
    return w == (ssize_t)sizeof m ? 0 : 1;
}
