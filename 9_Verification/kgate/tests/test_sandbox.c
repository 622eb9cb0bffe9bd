/* test_sandbox.c: the sandbox (sandbox.c, the stub kgate-sandbox) against a
 * hostile helper program compiled here. Each test plants a harm and checks
 * both that it did not happen (a canary tree's checksums, a loopback
 * listener that must accept nothing, no process left over) and that the
 * monitor's record names it. Also: the limits (CPU, file size, data), the
 * deadline kill of setsid() grandchildren, forged or truncated monitor
 * records, --no-sandbox, and a bubblewrap that does not work. Needs
 * bubblewrap (the Debian package) and a C compiler; no GPU. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "sandbox.h"
#include "sanitize_run.h"

static kg_sandbox sb;
static kg_sandbox *cur = &sb;   /* the sandbox run() uses */
static char bindir[1024], tmpdir[256], helper[512], canary[512], scratch[512];
static char opt_dir[256], opt_secret[64];   /* a file under /opt the sandboxes must not see */

/* The helper: one harm per mode. */
static const char *helper_src =
    "#define _GNU_SOURCE\n"
    "#include <arpa/inet.h>\n#include <dirent.h>\n#include <fcntl.h>\n#include <netinet/in.h>\n#include <signal.h>\n#include <stdio.h>\n"
    "#include <stdlib.h>\n#include <string.h>\n#include <sys/mman.h>\n#include <sys/shm.h>\n#include <sys/socket.h>\n"
    "#include <sys/wait.h>\n#include <unistd.h>\n"
    "static void show(const char *k, const char *path) { char b[256] = \"\"; FILE *f = fopen(path, \"r\");\n"
    "  if (!f) { printf(\"%s=ERR\\n\", k); return; } size_t n = fread(b, 1, sizeof b - 1, f); fclose(f); b[n] = 0;\n"
    "  for (size_t i = 0; i < n; i++) if (b[i] == '\\n') b[i] = ' '; printf(\"%s=%s\\n\", k, b); }\n"
    "int main(int argc, char **argv) {\n"
    "  const char *m = argv[1];\n"
    "  size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 0;\n"
    /* shmap, memfd MB [hold]: shared pages, touched (hold: then kept for 5 s, for a watcher to see);
     * memfd_fd MB: memfd files filled and kept open, never mapped, for 5 s */
    "  int hold = argc > 3 && !strcmp(argv[3], \"hold\");\n"
    "  if (!strcmp(m, \"shmap\")) { char *p = mmap(0, mb << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);\n"
    "    if (p == MAP_FAILED) return 3; for (size_t i = 0; i < mb << 20; i += 4096) p[i] = 1; if (hold) sleep(5); return 0; }\n"
    "  if (!strcmp(m, \"memfd\")) { for (size_t k = 0; k < mb / 8; k++) { int fd = memfd_create(\"x\", 0);\n"
    "      if (fd < 0 || ftruncate(fd, 8 << 20)) return 3; char *p = mmap(0, 8 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);\n"
    "      if (p == MAP_FAILED) return 3; close(fd); for (size_t i = 0; i < 8 << 20; i += 4096) p[i] = 1; } if (hold) sleep(5); return 0; }\n"
    "  if (!strcmp(m, \"memfd_fd\")) { for (size_t k = 0; k < mb / 8; k++) { int fd = memfd_create(\"x\", 0);\n"
    "      if (fd < 0 || fallocate(fd, 0, 0, 8 << 20)) return 3; } sleep(5); return 0; }\n"
    /* fmap FILE MB: MB of a file of the host (not tmpfs) mapped and every page read, held 5 s:
     * file-backed pages (RssFile), as managed memory touched on the host shows */
    "  if (!strcmp(m, \"fmap\")) { size_t n = (size_t)atol(argv[3]) << 20; int fd = open(argv[2], O_RDONLY);\n"
    "    char *p = fd < 0 ? MAP_FAILED : mmap(0, n, PROT_READ, MAP_SHARED, fd, 0); if (p == MAP_FAILED) return 3;\n"
    "    volatile char sum = 0; for (size_t i = 0; i < n; i += 4096) sum += p[i]; sleep(5); return sum == 7 ? 4 : 0; }\n"
    /* kids MB: four orphaned grandchildren (double fork, setsid), MB/4 shared pages each, held 5 s */
    "  if (!strcmp(m, \"kids\")) { for (int k = 0; k < 4; k++) if (fork() == 0) { if (fork() == 0) { setsid();\n"
    "        char *p = mmap(0, (mb / 4) << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);\n"
    "        if (p == MAP_FAILED) _exit(3); for (size_t i = 0; i < (mb / 4) << 20; i += 4096) p[i] = 1; sleep(5); }\n"
    "      _exit(0); } sleep(6); return 0; }\n"
    "  if (!strcmp(m, \"sysv\")) { int id = shmget(IPC_PRIVATE, mb << 20, IPC_CREAT | 0600); if (id < 0) return 3;\n"
    "    char *p = shmat(id, 0, 0); if (p == (void *)-1) return 3; for (size_t i = 0; i < mb << 20; i += 4096) p[i] = 1;\n"
    "    shmdt(p); return 0; }\n"
    "  if (!strcmp(m, \"ident\")) { char h[256] = \"\"; gethostname(h, sizeof h); printf(\"host=%s\\n\", h);\n"
    "    show(\"etc_hostname\", \"/etc/hostname\"); show(\"machine_id\", \"/etc/machine-id\"); show(\"opt\", argv[2]);\n"
    "    show(\"cpu_online\", \"/sys/devices/system/cpu/online\");\n"
    "    DIR *d = opendir(\"/sys/class/net\"); printf(\"sys_class_net=%s\\n\", d ? \"visible\" : \"absent\");\n"
    "    struct dirent *e; while (d && (e = readdir(d))) { char p[300]; snprintf(p, sizeof p, \"/sys/class/net/%s/address\", e->d_name);\n"
    "      if (e->d_name[0] != '.') show(\"mac\", p); }\n"
    "    int ncg = 0; d = opendir(\"/sys/fs/cgroup\"); while (d && (e = readdir(d))) ncg += e->d_name[0] != '.';\n"
    "    printf(\"cgroupfs=%s\\n\", ncg ? \"visible\" : \"absent\");\n"
    "    FILE *w = fopen(\"/dev/kgate_sbtest\", \"w\"); printf(\"dev_write=%s\\n\", w ? \"ok\" : \"refused\");\n"
    "    w = fopen(\"/dev/shm/kgate_sbtest\", \"w\"); printf(\"shm_write=%s\\n\", w ? \"ok\" : \"refused\"); return 0; }\n"
    "  if (!strcmp(m, \"write\")) { FILE *f = fopen(argv[2], \"w\"); if (f) { fputs(\"x\", f); fclose(f); return 0; } return 3; }\n"
    "  if (!strcmp(m, \"delete\")) return unlink(argv[2]) == 0 ? 0 : 3;\n"
    "  if (!strcmp(m, \"connect\")) { int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a;\n"
    "    memset(&a, 0, sizeof a); a.sin_family = AF_INET; a.sin_port = htons((unsigned short)atoi(argv[2]));\n"
    "    a.sin_addr.s_addr = htonl(0x7f000001); return connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : 3; }\n"
    "  if (!strcmp(m, \"spin\")) { for (volatile unsigned long k = 0;; k++) {} }\n"
    "  if (!strcmp(m, \"alloc\")) { size_t mb = (size_t)atol(argv[2]); char *p = malloc(mb << 20); return p ? 0 : 3; }\n"
    "  if (!strcmp(m, \"fill\")) { FILE *f = fopen(argv[2], \"w\"); static char b[1 << 16];\n"
    "    for (;;) if (fwrite(b, 1, sizeof b, f) != sizeof b || fflush(f)) return 3; }\n"
    "  if (!strcmp(m, \"escape\")) { if (fork() == 0) { setsid(); if (fork() == 0) { execlp(\"sleep\", \"sleep\", argv[2], (char *)0); } _exit(0); }\n"
    "    for (;;) pause(); }\n"
    "  if (!strcmp(m, \"kill\")) { kill(getppid(), SIGKILL); kill(1, SIGKILL); kill(-1, SIGTERM); return 0; }\n"
    "  if (!strcmp(m, \"env\")) { extern char **environ; for (char **e = environ; *e; e++) puts(*e); return 0; }\n"
    "  if (!strcmp(m, \"startup\")) { /* a refused write, the mark (argv[3] times), a refused write */\n"
    "    FILE *f = fopen(\"/etc/kgate_sbtest_startup\", \"w\"); if (f) fclose(f);\n"
    "    for (int k = 0; k < atoi(argv[3]); k++) unlink(argv[2]);\n"
    "    f = fopen(\"/etc/kgate_sbtest_cand\", \"w\"); if (f) fclose(f); return 0; }\n"
    "  if (!strcmp(m, \"linger\")) { /* a child's exit first, then a child that stays, then exit(5) */\n"
    "    pid_t c = fork(); if (c == 0) _exit(0); waitpid(c, NULL, 0);\n"
    "    if (fork() == 0) { sleep(30); _exit(0); } usleep(100000); exit(5); }\n"
    "  if (!strcmp(m, \"crash\")) { raise(SIGSEGV); return 0; }\n"
    "  if (!strcmp(m, \"deaf\")) { for (int s = 1; s < 65; s++) signal(s, SIG_IGN); for (;;) pause(); }\n"
    "  return 2;\n"
    "}\n";

static int has_event(const kg_sb_result *r, const char *text)
{
    for (int i = 0; i < KG_SB_EVENTS && r->events[i][0]; i++)
        if (strstr(r->events[i], text)) return 1;
    return 0;
}

static void dump(const kg_sb_result *r)
{
    char d[1400];
    kg_sb_describe(r, 1, d, sizeof d);
    fprintf(stderr, "    record: started=%d exit=%d signal=%d monitored=%d events: %s\n", r->started,
            r->exit_code, r->term_signal, r->monitored, d);
}

/* Run the helper in the sandbox; returns how kg_sb_wait ended. */
static int run_mark(kg_sb_kind kind, const char *const *args, kg_limits *lim, double deadline_s, int out_fd,
                    kg_sb_result *r, int startup_mark)
{
    const char *argv[8] = {helper};
    int a = 1;
    for (int i = 0; args[i] && a < 7; i++) argv[a++] = args[i];
    argv[a] = NULL;
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.scratch = scratch;
    s.argv = argv;
    s.out_fd = out_fd;
    s.slot = 3;
    s.lim = lim ? *lim : kg_default_limits(kind, 10);
    s.startup_mark = startup_mark;
    kg_sb_proc p;
    assert_int_equal(kg_sb_spawn(cur, &s, &p), 0);
    return kg_sb_wait(&p, kg_now() + deadline_s, r);
}

static int run(kg_sb_kind kind, const char *const *args, kg_limits *lim, double deadline_s, int out_fd,
               kg_sb_result *r)
{
    return run_mark(kind, args, lim, deadline_s, out_fd, r, 0);
}

/* A checksum of every file under a folder (name and content). */
static unsigned long long tree_sum(const char *dir)
{
    unsigned long long h = 1469598103934665603ULL;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unsigned long long nh = 1469598103934665603ULL;
        for (const char *c = e->d_name; *c; c++) nh = (nh ^ (unsigned char)*c) * 1099511628211ULL;
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) nh ^= tree_sum(p) + 7;
        else {
            FILE *f = fopen(p, "rb");
            int ch;
            while (f && (ch = fgetc(f)) != EOF) nh = (nh ^ (unsigned)ch) * 1099511628211ULL;
            if (f) fclose(f);
        }
        h += nh;   /* order-independent */
    }
    closedir(d);
    return h;
}

static int setup(void **state)
{
    (void)state;
    snprintf(bindir, sizeof bindir, "%s", __FILE__);
    char *p = strstr(bindir, "9_Verification/kgate/tests/test_sandbox.c");
    if (!p) return -1;
    strcpy(p, "build/libexec/kgate");   /* the helpers (kgate-sandbox) */
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate_sbtest_XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    chmod(tmpdir, 0755);
    char src[600], cmd[2000];
    snprintf(src, sizeof src, "%s/helper.c", tmpdir);
    snprintf(helper, sizeof helper, "%s/helper", tmpdir);
    FILE *f = fopen(src, "w");
    if (!f) return -1;
    fputs(helper_src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -O1 -o %s %s", helper, src);
    if (system(cmd) != 0) { fprintf(stderr, "cannot compile the helper\n"); return -1; }
    snprintf(scratch, sizeof scratch, "%s/scratch", tmpdir);
    mkdir(scratch, 0777);
    chmod(scratch, 0777);
    /* the canary tree: outside everything the sandbox may write */
    snprintf(canary, sizeof canary, "/var/tmp/kgate_sbtest_canary_%d", (int)getpid());
    mkdir(canary, 0755);
    char cf[700];
    snprintf(cf, sizeof cf, "%s/keep.txt", canary);
    f = fopen(cf, "w");
    fputs("do not touch\n", f);
    fclose(f);
    /* under /opt, where a toolkit may live: visible in no sandbox */
    snprintf(opt_dir, sizeof opt_dir, "/opt/kgate_sbtest_%d", (int)getpid());
    snprintf(opt_secret, sizeof opt_secret, "OPT-SECRET-%d", (int)getpid());
    if (mkdir(opt_dir, 0755) == 0) {
        snprintf(cf, sizeof cf, "%s/secret.txt", opt_dir);
        f = fopen(cf, "w");
        if (f) { fprintf(f, "%s\n", opt_secret); fclose(f); }
    } else {
        opt_dir[0] = 0;
    }
    char err[600];
    if (kg_sandbox_setup(&sb, bindir, 0, err, sizeof err) != 0) {
        fprintf(stderr, "sandbox setup failed: %s\n", err);
        return -1;
    }
    kg_sandbox_add_ro(&sb, tmpdir);   /* the helper */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", tmpdir, canary, opt_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_setup_and_selftest(void **s)
{
    (void)s;
    assert_true(sb.enabled);
    assert_true(sb.monitor);
    assert_non_null(strstr(sb.desc, "bubblewrap"));
    assert_true(sb.start_ms > 0 && sb.start_ms < 2000);
    fprintf(stderr, "    sandbox: %s\n", sb.desc);
}

/* Writes and deletes outside the writable folders: refused, reported, and
 * the canary tree unchanged. */
static void test_files(void **s)
{
    (void)s;
    unsigned long long before = tree_sum(canary);
    char target[700], keep[700];
    snprintf(target, sizeof target, "%s/pwned.txt", canary);
    snprintf(keep, sizeof keep, "%s/keep.txt", canary);
    kg_sb_result r;
    const char *w[] = {"write", target, NULL};
    assert_int_equal(run(KG_SB_HARNESS, w, NULL, 10, -1, &r), 1);
    if (r.exit_code != 3 || !has_event(&r, "write to /var/tmp/kgate_sbtest_canary")) dump(&r);
    assert_int_equal(r.exit_code, 3);
    assert_true(r.n_violations >= 1);
    assert_true(has_event(&r, "refused"));
    const char *d[] = {"delete", keep, NULL};
    assert_int_equal(run(KG_SB_HARNESS, d, NULL, 10, -1, &r), 1);
    assert_int_equal(r.exit_code, 3);
    assert_true(has_event(&r, "delete of /var/tmp/kgate_sbtest_canary"));
    const char *e[] = {"write", "/etc/kgate_sbtest", NULL};
    assert_int_equal(run(KG_SB_HARNESS, e, NULL, 10, -1, &r), 1);
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(access("/etc/kgate_sbtest", F_OK), -1);
    assert_int_equal(tree_sum(canary), before);
    /* /tmp is private and writable: no violation, nothing on the host */
    const char *t[] = {"write", "/tmp/kgate_sbtest_private", NULL};
    assert_int_equal(run(KG_SB_HARNESS, t, NULL, 10, -1, &r), 1);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.n_violations, 0);
    assert_int_equal(access("/tmp/kgate_sbtest_private", F_OK), -1);
    /* scratch: read-only for the harness, writable for nvcc */
    const char *sc[] = {"write", "/scratch/out.txt", NULL};
    char host[700];
    snprintf(host, sizeof host, "%s/out.txt", scratch);
    assert_int_equal(run(KG_SB_HARNESS, sc, NULL, 10, -1, &r), 1);
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(access(host, F_OK), -1);
    kg_limits lim = kg_default_limits(KG_SB_COMPILE, 10);
    kg_sb_spec spec;
    (void)spec;
    const char *argv[] = {helper, "write", "/scratch/out.txt", NULL};
    kg_sb_spec cs;
    memset(&cs, 0, sizeof cs);
    cs.kind = KG_SB_COMPILE;
    cs.scratch = scratch;
    cs.scratch_rw = 1;
    cs.argv = argv;
    cs.out_fd = -1;
    cs.lim = lim;
    kg_sb_proc p;
    assert_int_equal(kg_sb_spawn(&sb, &cs, &p), 0);
    assert_int_equal(kg_sb_wait(&p, kg_now() + 10, &r), 1);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(access(host, F_OK), 0);
    unlink(host);
}

/* The harness's start-up mark (the H200 finding: CUDA's own start-up in a
 * dry run's harness became a candidate's L2 verdict). What happens before
 * the first mark is recorded as start-up, never a violation; what happens
 * after it is a violation as before; a second mark cannot move the boundary
 * (it is an ordinary refused delete); without startup_mark (or for another
 * kind of sandbox) nothing changes. */
static void test_startup_mark(void **s)
{
    (void)s;
    kg_sb_result r;
    const char *once[] = {"startup", KG_SB_STARTUP_MARK, "1", NULL};
    assert_int_equal(run_mark(KG_SB_HARNESS, once, NULL, 10, -1, &r, 1), 1);
    if (r.n_violations != 1) dump(&r);
    assert_int_equal(r.startup_marked, 1);
    assert_int_equal(r.n_violations, 1);
    assert_int_equal(r.n_startup, 1);
    assert_true(has_event(&r, "write to /etc/kgate_sbtest_startup refused (outside its writable folders)" KG_SB_STARTUP_TAG));
    char viol[600];
    kg_sb_describe(&r, 0, viol, sizeof viol);
    assert_non_null(strstr(viol, "write to /etc/kgate_sbtest_cand refused"));
    assert_null(strstr(viol, "kgate_sbtest_startup"));
    /* a second mark: an ordinary refused delete, and the write after it counts */
    const char *twice[] = {"startup", KG_SB_STARTUP_MARK, "2", NULL};
    assert_int_equal(run_mark(KG_SB_HARNESS, twice, NULL, 10, -1, &r, 1), 1);
    kg_sb_describe(&r, 0, viol, sizeof viol);
    assert_int_equal(r.n_violations, 2);
    assert_non_null(strstr(viol, "delete of " KG_SB_STARTUP_MARK " refused"));
    assert_non_null(strstr(viol, "kgate_sbtest_cand"));
    /* not marked by its spec: every event counts, the mark is just a delete */
    assert_int_equal(run_mark(KG_SB_HARNESS, once, NULL, 10, -1, &r, 0), 1);
    assert_int_equal(r.startup_marked, 0);
    assert_int_equal(r.n_violations, 3);
    assert_int_equal(r.n_startup, 0);
    /* a candidate that never marks (no harness did): everything counts too */
    const char *never[] = {"startup", KG_SB_STARTUP_MARK, "0", NULL};
    assert_int_equal(run_mark(KG_SB_HARNESS, never, NULL, 10, -1, &r, 1), 1);
    assert_int_equal(r.startup_marked, 0);
    assert_int_equal(r.n_violations, 0);   /* all before the mark that never came: start-up */
    assert_int_equal(r.n_startup, 2);
}

/* A loopback listener on the host: the sandbox reaches nothing, the connect
 * is reported. */
static void test_network(void **s)
{
    (void)s;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(0x7f000001);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 8), 0);
    socklen_t al = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &al);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)ntohs(a.sin_port));
    kg_sb_result r;
    const char *c[] = {"connect", port, NULL};
    assert_int_equal(run(KG_SB_HARNESS, c, NULL, 10, -1, &r), 1);
    assert_int_equal(r.exit_code, 3);
    char want[64];
    snprintf(want, sizeof want, "connect to 127.0.0.1:%s refused", port);
    if (!has_event(&r, want)) dump(&r);
    assert_true(has_event(&r, want));
    int acc = accept(l, NULL, NULL);
    assert_int_equal(acc, -1);   /* nothing arrived */
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
    close(l);
}

/* The environment: only what the gate set, and the GPU selection the gate
 * was given (the harness numbers devices as the judge does). */
static void test_environment(void **s)
{
    (void)s;
    setenv("KGATE_SECRET_TOKEN", "hunter2", 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    int saw_devices = 0, saw_order = 0;
    char out[700];
    snprintf(out, sizeof out, "%s/env.txt", tmpdir);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    kg_sb_result r;
    const char *e[] = {"env", NULL};
    assert_int_equal(run(KG_SB_HARNESS, e, NULL, 10, fd, &r), 1);
    close(fd);
    FILE *f = fopen(out, "r");
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        assert_null(strstr(line, "hunter2"));
        int known = !strncmp(line, "PATH=", 5) || !strncmp(line, "HOME=", 5) || !strncmp(line, "TMPDIR=", 7) ||
                    !strncmp(line, "LANG=", 5) || !strncmp(line, "LD_LIBRARY_PATH=", 16) ||
                    !strncmp(line, "PWD=", 4);   /* bubblewrap sets it with --chdir */
        if (!strcmp(line, "CUDA_VISIBLE_DEVICES=1\n")) saw_devices = known = 1;
        if (!strcmp(line, "CUDA_DEVICE_ORDER=PCI_BUS_ID\n")) saw_order = known = 1;
        if (!known) fail_msg("unexpected variable in the sandbox: %s", line);
    }
    fclose(f);
    assert_true(n >= 3);
    if (!saw_devices || !saw_order) fail_msg("the GPU selection did not reach the sandbox");
    unsetenv("KGATE_SECRET_TOKEN");
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("CUDA_DEVICE_ORDER");
}

static int sleepers(const char *arg)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[300], buf[512];
        snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
        int fd = open(p, O_RDONLY);
        if (fd < 0) continue;
        ssize_t g = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (g <= 0) continue;
        for (ssize_t i = 0; i < g; i++) if (!buf[i]) buf[i] = ' ';
        buf[g] = 0;
        if (strstr(buf, arg)) n++;
    }
    closedir(d);
    return n;
}

/* A grandchild in a session of its own, and a process that ignores every
 * signal: the deadline kills both, with everything in the PID namespace. */
static void test_deadline_kills_everything(void **s)
{
    (void)s;
    char marker[32];   /* sleep 313.<pid>: unique to this run, another run of the test may sleep too */
    snprintf(marker, sizeof marker, "313.%d", (int)getpid());
    kg_sb_result r;
    const char *e[] = {"escape", marker, NULL};
    double t0 = kg_now();
    assert_int_equal(run(KG_SB_HARNESS, e, NULL, 1.0, -1, &r), 0);   /* 0: killed at the deadline */
    assert_true(kg_now() - t0 < 5.0);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(has_event(&r, "setsid"));
    assert_true(has_event(&r, "process creation"));
    usleep(200000);
    assert_int_equal(sleepers(marker), 0);
    const char *d[] = {"deaf", NULL};
    assert_int_equal(run(KG_SB_HARNESS, d, NULL, 1.0, -1, &r), 0);
    assert_int_equal(r.term_signal, SIGKILL);
}

/* Signals to the parent, to pid 1 and to everyone: only the sandbox exists. */
static void test_kill_parent(void **s)
{
    (void)s;
    kg_sb_result r;
    const char *k[] = {"kill", NULL};
    assert_int_equal(run(KG_SB_HARNESS, k, NULL, 10, -1, &r), 1);
    assert_true(has_event(&r, "pid 1, its parent"));
    assert_true(has_event(&r, "every process it can see"));
    /* and this process is still here to check it */
}

/* A harness is reported when it calls exit_group itself, with its status
 * (not a child's), without waiting for what else is left in its sandbox;
 * a crash, and any other kind of sandbox, are reported at the real end. */
static void test_ended_early(void **s)
{
    (void)s;
    kg_sb_result r;
    const char *l[] = {"linger", NULL};
    double t0 = kg_now();
    assert_int_equal(run(KG_SB_HARNESS, l, NULL, 10, -1, &r), 1);
    double took = kg_now() - t0;
    if (r.ended_early != 1 || r.exit_code != 5) dump(&r);
    assert_int_equal(r.ended_early, 1);
    assert_int_equal(r.exit_code, 5);
    assert_int_equal(r.term_signal, 0);
    assert_true(took < 5.0);   /* not the 30 s its child sleeps */
    t0 = kg_now();
    kg_sb_reap_lingering(1);   /* the monitor ends its sandbox: the child goes with it */
    assert_true(kg_now() - t0 < 5.0);
    const char *c[] = {"crash", NULL};
    assert_int_equal(run(KG_SB_HARNESS, c, NULL, 10, -1, &r), 1);
    assert_int_equal(r.ended_early, 0);
    assert_int_equal(r.term_signal, SIGSEGV);
    const char *e[] = {"alloc", "1", NULL};
    assert_int_equal(run(KG_SB_COMPILE, e, NULL, 10, -1, &r), 1);
    assert_int_equal(r.ended_early, 0);
    assert_int_equal(r.exit_code, 0);
}

/* CPU time, file size and memory limits, named in the ending. */
static void test_limits(void **s)
{
    (void)s;
    kg_sb_result r;
    char why[200];
    kg_limits lim = kg_default_limits(KG_SB_HARNESS, 10);
    lim.cpu_s = 1;
    const char *sp[] = {"spin", NULL};
    assert_int_equal(run(KG_SB_HARNESS, sp, &lim, 20, -1, &r), 1);
    assert_true(r.term_signal == SIGXCPU || r.term_signal == SIGKILL);
    kg_sb_ending(&r, &lim, why, sizeof why);
    assert_non_null(strstr(why, "CPU time limit"));
    lim = kg_default_limits(KG_SB_HARNESS, 10);
    const char *fl[] = {"fill", "/tmp/big", NULL};
    assert_int_equal(run(KG_SB_HARNESS, fl, &lim, 20, -1, &r), 1);
    /* 16 MiB: the file size limit or the tmpfs fills first */
    assert_true(r.term_signal == SIGXFSZ || r.exit_code == 3);
    if (r.term_signal == SIGXFSZ) {
        kg_sb_ending(&r, &lim, why, sizeof why);
        assert_non_null(strstr(why, "file size limit"));
    }
    lim.data_bytes = 256ULL << 20;
    const char *al[] = {"alloc", "1024", NULL};
    assert_int_equal(run(KG_SB_HARNESS, al, &lim, 20, -1, &r), 1);
    assert_int_equal(r.exit_code, 3);   /* malloc refused */
    const char *ok[] = {"alloc", "64", NULL};
    assert_int_equal(run(KG_SB_HARNESS, ok, &lim, 20, -1, &r), 1);
    assert_int_equal(r.exit_code, 0);
}

/* Records that are forged, truncated or absent never pass for a result. */
static void test_forged_records(void **s)
{
    (void)s;
    kg_sb_result r;
    memset(&r, 0, sizeof r);
    r.magic = KG_SB_MAGIC;
    assert_true(kg_sb_result_valid(&r));
    r.n_violations = 5;
    assert_false(kg_sb_result_valid(&r));
    r.n_violations = 0;
    r.term_signal = 1000;
    assert_false(kg_sb_result_valid(&r));
    r.term_signal = 0;
    memset(r.events[3], 'A', sizeof r.events[3]);
    assert_false(kg_sb_result_valid(&r));
    memset(&r, 0x5a, sizeof r);
    assert_false(kg_sb_result_valid(&r));
    /* a "monitor" that writes half a record, or garbage, then exits */
    for (int mode = 0; mode < 3; mode++) {
        int pp[2];
        assert_int_equal(pipe(pp), 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(pp[0]);
            kg_sb_result g;
            memset(&g, mode == 2 ? 0x41 : 0, sizeof g);
            g.magic = mode == 0 ? KG_SB_MAGIC : 0xdeadbeef;
            ssize_t w = write(pp[1], &g, mode == 0 ? sizeof g / 2 : sizeof g);
            (void)w;
            _exit(0);
        }
        close(pp[1]);
        setpgid(pid, pid);
        kg_sb_proc p = {pid, pp[0], kg_now()};
        kg_sb_result got;
        assert_int_equal(kg_sb_wait(&p, kg_now() + 5, &got), -1);
        assert_true(got.stub_failed);
        assert_non_null(strstr(got.stub_msg, "no record"));
    }
    char buf[64];
    kg_sb_describe(&r, 1, buf, 0);   /* a zero-size buffer: nothing written, no crash */
}

/* --no-sandbox still runs (limits and monitor) and says so; a bubblewrap
 * that cannot run is caught by the self-test, so the gate refuses. */
static void test_no_sandbox_and_broken_bwrap(void **s)
{
    (void)s;
    kg_sandbox ns;
    char err[600];
    assert_int_equal(kg_sandbox_setup(&ns, bindir, 1, err, sizeof err), 0);
    assert_false(ns.enabled);
    assert_non_null(strstr(ns.desc, "UNSAFE"));
    setenv("KGATE_BWRAP", "/bin/false", 1);
    kg_sandbox bad;
    assert_int_equal(kg_sandbox_setup(&bad, bindir, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "self-test"));
    setenv("KGATE_BWRAP", "/nonexistent/bwrap", 1);
    assert_int_equal(kg_sandbox_setup(&bad, bindir, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "KGATE_BWRAP"));
    unsetenv("KGATE_BWRAP");
}

/* What a sandbox's process can read that names the host: its host name
 * (the UTS namespace's own), /etc/hostname and /etc/machine-id (empty), a
 * file under /opt (not there), the network interfaces and their MAC
 * addresses (/sys/class/net: not there), the cgroup file system (not
 * there); what CUDA reads (/sys/devices/system/cpu) is there. /dev is
 * read-only, /dev/shm a small tmpfs. Also with the /sys fallback. */
static void check_identity(const char *out_path, const char *mode)
{
    char host[256] = "";
    gethostname(host, sizeof host);
    char *text = NULL;
    FILE *f = fopen(out_path, "r");
    assert_non_null(f);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    text = buf;
    if (!strstr(text, "host=" KG_SB_HOSTNAME "\n")) fail_msg("%s: host name: %s", mode, text);
    char want[300];
    snprintf(want, sizeof want, "host=%s\n", host);
    if (strcmp(host, KG_SB_HOSTNAME) != 0) assert_null(strstr(text, want));
    /* /etc/hostname: empty, or unreadable (the mask is /dev/null on a nodev mount) */
    if (!strstr(text, "etc_hostname=\n") && !strstr(text, "etc_hostname=ERR\n"))
        fail_msg("%s: /etc/hostname: %s", mode, text);
    if (!strstr(text, "machine_id=\n") && !strstr(text, "machine_id=ERR")) fail_msg("%s: machine id: %s", mode, text);
    assert_non_null(strstr(text, "opt=ERR"));
    if (opt_secret[0]) assert_null(strstr(text, opt_secret));
    if (strstr(text, "cpu_online=ERR")) fail_msg("%s: /sys/devices/system/cpu is not visible: %s", mode, text);
    assert_non_null(strstr(text, "cgroupfs=absent"));
    assert_non_null(strstr(text, "dev_write=refused"));
    assert_non_null(strstr(text, "shm_write=ok"));
    assert_null(strstr(text, "mac="));   /* no interface is listed (fallback: an empty folder) */
    /* and no MAC address of this host appears at all */
    DIR *d = opendir("/sys/class/net");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[400], mac[64] = "";
        snprintf(p, sizeof p, "/sys/class/net/%s/address", e->d_name);
        FILE *m = fopen(p, "r");
        if (m && fgets(mac, sizeof mac, m)) {
            mac[strcspn(mac, "\n")] = 0;
            if (strcmp(mac, "00:00:00:00:00:00") && mac[0]) {
                if (strstr(text, mac)) fail_msg("%s: the MAC address %s of %s is readable", mode, mac, e->d_name);
            }
        }
        if (m) fclose(m);
    }
    if (d) closedir(d);
}

static void test_identity(void **s)
{
    (void)s;
    char out[700], secret[700];
    snprintf(out, sizeof out, "%s/ident.txt", tmpdir);
    snprintf(secret, sizeof secret, "%s/secret.txt", opt_dir[0] ? opt_dir : "/opt/none");
    for (int full = 0; full < 2; full++) {
        sb.sys_full = full;
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        kg_sb_result r;
        const char *id[] = {"ident", secret, NULL};
        int rc = run(KG_SB_HARNESS, id, NULL, 10, fd, &r);
        close(fd);
        assert_int_equal(rc, 1);
        check_identity(out, full ? "the /sys fallback" : "the /sys whitelist");
    }
    sb.sys_full = 0;
    /* the scan's and the compiler's sandboxes see no /sys at all */
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    kg_sb_result r;
    const char *id[] = {"ident", secret, NULL};
    assert_int_equal(run(KG_SB_COMPILE, id, NULL, 10, fd, &r), 1);
    close(fd);
    char buf[4096] = "";
    FILE *f = fopen(out, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_non_null(strstr(buf, "host=" KG_SB_HOSTNAME "\n"));
    assert_non_null(strstr(buf, "cpu_online=ERR"));
    assert_non_null(strstr(buf, "opt=ERR"));
}

/* Host memory: a shared anonymous mapping and memfd mappings over the
 * sandbox's limit are killed by its memory cgroup and the ending says so;
 * under the limit they run. RLIMIT_DATA alone counts none of them (the
 * limit below is a quarter of it). A SysV segment is refused outright. */
static void test_memory(void **s)
{
    (void)s;
    if (!sb.memcg) {
        fprintf(stderr, "    no memory cgroup can be made here: test_memory_fallback covers this machine\n");
        return;
    }
    kg_sb_result r;
    char why[300];
    kg_limits lim = kg_default_limits(KG_SB_HARNESS, 10);
    lim.mem_bytes = 64ULL << 20;
    lim.data_bytes = 256ULL << 20;
    const char *small[] = {"shmap", "16", NULL};
    assert_int_equal(run(KG_SB_HARNESS, small, &lim, 20, -1, &r), 1);
    if (r.exit_code != 0) dump(&r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.mem_oom, 0);
    assert_int_equal(r.mem_watched, 0);
    if (r.mem_peak_kb < 16 * 1024) fail_msg("the cgroup's peak: %ld KiB", r.mem_peak_kb);
    static const char *const modes[] = {"shmap", "memfd"};
    for (int m = 0; m < 2; m++) {
        const char *big[] = {modes[m], "96", NULL};
        run(KG_SB_HARNESS, big, &lim, 20, -1, &r);
        kg_sb_ending(&r, &lim, why, sizeof why);
        if (r.mem_oom < 1 || r.term_signal != SIGKILL) {
            dump(&r);
            fail_msg("%s 96 MiB over a 64 MiB limit: %s (exit %d)", modes[m], why, r.exit_code);
        }
        assert_non_null(strstr(why, "host memory limit (0.1 GiB"));
    }
    /* the compiler's sandbox has one too */
    const char *big[] = {"shmap", "96", NULL};
    run(KG_SB_COMPILE, big, &lim, 20, -1, &r);
    assert_true(r.mem_oom >= 1);
}

/* SysV shared memory outlives every mapping and shows in no process's
 * resident memory: refused in every sandbox, and recorded. */
static void test_sysv_refused(void **s)
{
    (void)s;
    kg_sb_result r;
    const char *sysv[] = {"sysv", "16", NULL};
    assert_int_equal(run(KG_SB_HARNESS, sysv, NULL, 20, -1, &r), 1);
    char d[1400];
    kg_sb_describe(&r, 0, d, sizeof d);
    if (r.exit_code != 3 || !strstr(d, "shmget")) {
        dump(&r);
        fail_msg("a SysV segment was not refused: exit %d, %s", r.exit_code, d);
    }
}

/* Where no memory cgroup can be made (KGATE_MEMCG=none forces it here),
 * the monitor watches the harness's resident memory and kills it over the
 * limit: shared anonymous pages, memfd pages mapped, memfd files held open
 * and never mapped, and four orphaned grandchildren that each hold less
 * than the limit. Under the limit the same run. */
static void test_memory_fallback(void **s)
{
    (void)s;
    static kg_sandbox fb;
    char err[600];
    setenv("KGATE_MEMCG", "none", 1);
    int rc = kg_sandbox_setup(&fb, bindir, 0, err, sizeof err);
    unsetenv("KGATE_MEMCG");
    assert_int_equal(rc, 0);
    assert_int_equal(fb.memcg, 0);
    kg_sandbox_add_ro(&fb, tmpdir);
    cur = &fb;
    kg_sb_result r;
    char why[300];
    kg_limits lim = kg_default_limits(KG_SB_HARNESS, 10);
    lim.mem_bytes = 64ULL << 20;
    lim.data_bytes = 256ULL << 20;
    const char *small[] = {"shmap", "16", "hold", NULL};
    assert_int_equal(run(KG_SB_HARNESS, small, &lim, 20, -1, &r), 1);
    if (r.exit_code != 0) dump(&r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.mem_watched, 1);
    assert_int_equal(r.mem_oom, 0);
    if (r.mem_peak_kb < 16 * 1024) fail_msg("the watcher's peak: %ld KiB", r.mem_peak_kb);
    /* kids: each process under the limit, together over it (the watcher sums
     * every process of the sandbox, orphaned grandchildren too) */
    static const char *const modes[] = {"shmap", "memfd", "memfd_fd", "kids"};
    for (int m = 0; m < 4; m++) {
        const char *big[] = {modes[m], "96", "hold", NULL};
        double t0 = kg_now();
        run(KG_SB_HARNESS, big, &lim, 20, -1, &r);
        kg_sb_ending(&r, &lim, why, sizeof why);
        if (r.mem_oom != 1 || r.term_signal != SIGKILL) {
            dump(&r);
            fail_msg("%s 96 MiB over a 64 MiB limit, no cgroup: %s (exit %d)", modes[m], why, r.exit_code);
        }
        assert_non_null(strstr(why, "watched by the gate): killed at"));
        /* killed while it held the memory, not after its 5 s */
        if (kg_now() - t0 > 4.0) fail_msg("%s: killed only after %.1f s", modes[m], kg_now() - t0);
    }
    /* file-backed pages: a file of the host's (this test's own folder, read
     * only inside) mapped and read, 96 MiB past a 16 MiB slack over a 64 MiB
     * limit killed, 48 MiB not; the reason names them. On tmpfs they would
     * be RssShmem and prove nothing about RssFile: then a folder of its own
     * under the working directory (the build's disk) instead. */
    char fdir[PATH_MAX] = "", big_file[PATH_MAX + 16];
    struct statfs fs;
    if (statfs(tmpdir, &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
        char here[PATH_MAX];
        assert_non_null(getcwd(here, sizeof here));
        snprintf(fdir, sizeof fdir, "%.3000s/kgate_sbfile_XXXXXX", here);
        assert_non_null(mkdtemp(fdir));
        chmod(fdir, 0755);
        assert_int_equal(statfs(fdir, &fs), 0);
        if (fs.f_type == TMPFS_MAGIC) fail_msg("%s and %s are tmpfs: the file-backed case needs a disk", tmpdir, fdir);
        kg_sandbox_add_ro(&fb, fdir);
    }
    snprintf(big_file, sizeof big_file, "%s/mapped.bin", fdir[0] ? fdir : tmpdir);
    int fd = open(big_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    static char chunk[1 << 20];
    memset(chunk, 1, sizeof chunk);
    for (int i = 0; i < 96; i++) assert_int_equal(write(fd, chunk, sizeof chunk), (ssize_t)sizeof chunk);
    close(fd);
    lim.file_slack_bytes = 16ULL << 20;
    const char *fsmall[] = {"fmap", big_file, "48", NULL};
    run(KG_SB_HARNESS, fsmall, &lim, 20, -1, &r);
    if (r.exit_code != 0 || r.mem_oom) dump(&r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.mem_oom, 0);
    if (r.mem_file_kb < 48 * 1024) fail_msg("file-backed pages seen: %ld KiB", r.mem_file_kb);
    const char *fbig[] = {"fmap", big_file, "96", NULL};
    double t0 = kg_now();
    run(KG_SB_HARNESS, fbig, &lim, 20, -1, &r);
    kg_sb_ending(&r, &lim, why, sizeof why);
    if (r.mem_oom != 1 || r.term_signal != SIGKILL) {
        dump(&r);
        fail_msg("fmap 96 MiB past a 16 MiB slack over a 64 MiB limit, no cgroup: %s (exit %d)", why, r.exit_code);
    }
    assert_non_null(strstr(why, "watched by the gate): killed at"));
    assert_non_null(strstr(why, "of it file-backed or managed"));
    if (kg_now() - t0 > 4.0) fail_msg("fmap: killed only after %.1f s", kg_now() - t0);
    unlink(big_file);
    if (fdir[0]) rmdir(fdir);
    char d[400];
    kg_sandbox_memory_desc(&fb, d, sizeof d);
    assert_non_null(strstr(d, "watches each harness's resident memory"));
    assert_non_null(strstr(d, "file-backed or managed memory past"));
    cur = &sb;
}

/* A GPU machine's harness sandbox: a bind for each device node, each GPU's
 * PCI folder in /sys deep under its bridges, with their parents. Its
 * bubblewrap command line is long; the H200 cut the target off a shorter
 * one (the stub said "no target"). It must start, and a line that cannot
 * fit must be refused by name, never cut. */
/* The sanitizer pass's report: the tool writes it through /proc/self/fd/3 in
 * the harness's sandbox, whose scratch folder is read-only; the file the gate
 * made (kg_san_report_file) must be writable there by the sandbox's user,
 * and nothing else of the scratch folder. */
static void test_report_through_fd(void **s)
{
    (void)s;
    char path[1200], other[1200];
    snprintf(path, sizeof path, "%s/report.xml", scratch);
    snprintf(other, sizeof other, "%s/other.txt", scratch);
    unlink(path);
    unlink(other);
    int fd = kg_san_report_file(cur, 3, path);
    assert_true(fd >= 0);
    assert_int_equal(kg_san_report_file(cur, 3, path), -1);   /* never an existing file */
    const char *argv[] = {"/bin/sh", "-c",
                          "echo '<report/>' > /proc/self/fd/3; echo x > /scratch/other.txt", NULL};
    kg_sb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = KG_SB_HARNESS;
    sp.scratch = scratch;
    sp.argv = argv;
    sp.out_fd = -1;
    sp.slot = 3;
    sp.fds[0] = fd;
    sp.n_fds = 1;
    sp.lim = kg_default_limits(KG_SB_HARNESS, 10);
    kg_sb_proc p;
    assert_int_equal(kg_sb_spawn(cur, &sp, &p), 0);
    close(fd);
    kg_sb_result r;
    kg_sb_wait(&p, kg_now() + 20, &r);
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
    if (strcmp(buf, "<report/>\n")) dump(&r);
    assert_string_equal(buf, "<report/>\n");
    assert_int_equal(access(other, F_OK), -1);   /* the rest of scratch stays read-only */
    unlink(path);
}

static void test_long_command_line(void **s)
{
    (void)s;
    static kg_sandbox big;
    big = sb;
    big.n_sys = KG_SB_MAX_SYS;
    for (int i = 0; i < KG_SB_MAX_SYS; i++)
        snprintf(big.sys[i], sizeof big.sys[0], "/sys/devices/pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0/"
                 "0000:%02x:10.0/0000:%02x:00.0", i, i, i + 1, i + 2, i + 3);
    big.n_sys_link = KG_SB_MAX_SYS;
    for (int i = 0; i < KG_SB_MAX_SYS; i++) {
        snprintf(big.sys_link[i][0], sizeof big.sys_link[0][0], "/sys/bus/pci/devices/0000:%02x:00.0", i + 3);
        snprintf(big.sys_link[i][1], sizeof big.sys_link[0][1], "../../../devices/pci0000:%02x/x", i);
    }
    big.n_dev = KG_SB_MAX_DEV;
    for (int i = 0; i < KG_SB_MAX_DEV; i++) snprintf(big.dev[i], sizeof big.dev[0], "/dev/nvidia%d", 100 + i);
    cur = &big;
    kg_sb_result r;
    const char *ok[] = {"alloc", "1", NULL};
    assert_int_equal(run(KG_SB_HARNESS, ok, NULL, 20, -1, &r), 1);
    if (!r.started || r.exit_code != 0) dump(&r);
    assert_true(r.started);
    assert_int_equal(r.exit_code, 0);
    /* far more than fits: refused by name */
    for (int i = 0; i < KG_SB_MAX_SYS; i++) {
        char p[256] = "/sys";
        for (int k = 0; k < 40; k++) { size_t l = strlen(p); snprintf(p + l, sizeof p - l, "/%c%d", 'a' + k % 26, i); }
        snprintf(big.sys[i], sizeof big.sys[0], "%s", p);
    }
    run(KG_SB_HARNESS, ok, NULL, 20, -1, &r);
    assert_false(r.started);
    assert_true(r.stub_failed);
    assert_non_null(strstr(r.stub_msg, "command line does not fit"));
    cur = &sb;
}

/* What a sandbox start costs here (spawn to the target's exec). */
static void test_start_cost(void **s)
{
    (void)s;
    double v[9];
    for (int i = 0; i < 9; i++) {
        kg_sb_result r;
        const char *e[] = {"alloc", "1", NULL};
        run(KG_SB_HARNESS, e, NULL, 10, -1, &r);
        v[i] = r.start_ms;
    }
    for (int i = 0; i < 9; i++)
        for (int k = i + 1; k < 9; k++)
            if (v[k] < v[i]) { double t = v[i]; v[i] = v[k]; v[k] = t; }
    fprintf(stderr, "    sandbox start (spawn to exec): median %.1f ms, min %.1f, max %.1f over 9\n", v[4],
            v[0], v[8]);
    assert_true(v[4] > 0 && v[4] < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_and_selftest),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_startup_mark),
        cmocka_unit_test(test_network),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_deadline_kills_everything),
        cmocka_unit_test(test_kill_parent),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_ended_early),
        cmocka_unit_test(test_forged_records),
        cmocka_unit_test(test_no_sandbox_and_broken_bwrap),
        cmocka_unit_test(test_start_cost),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_long_command_line),
        cmocka_unit_test(test_report_through_fd),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_sysv_refused),
        cmocka_unit_test(test_memory_fallback),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
