/* kgate-scan: the static track in a sandbox of its own (bin/kgate-scan).
 *
 *   kgate-scan FILE NAME [--policy=P] [--signature=SIG] [--torch-entry=NAME]
 *                              (inside the sandbox: FILE is /scratch/cand.src)
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
    if (argc < 3) {
        fprintf(stderr, "usage: kgate-scan FILE NAME [--policy=P] [--signature=SIG] [--torch-entry=NAME] "
                        "(result record on fd 3)\n");
        return 2;
    }
    int policy = KG_POLICY_DEFAULT;
    kg_scan_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 3; i < argc; i++) {
        if (!strncmp(argv[i], "--policy=", 9)) policy = kg_policy_parse(argv[i] + 9);
        else if (!strncmp(argv[i], "--signature=", 12)) o.launch_signature = argv[i] + 12;
        else if (!strncmp(argv[i], "--torch-entry=", 14)) o.torch_entry = argv[i] + 14;
        else policy = -1;
        if (policy < 0) { fprintf(stderr, "kgate-scan: bad argument %s\n", argv[i]); return 2; }
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
    int rc = kg_static_scan_ex(src, argv[2], &o, &r);
    static kg_static_msg m;
    kg_static_msg_from(&r, rc, policy, &m);
    ssize_t w = write(3, &m, sizeof m);
    kg_static_free(&r);
    free(src);
    return w == (ssize_t)sizeof m ? 0 : 1;
}
