/* shared_sz_expect.c: the sanitize harness's sz_expect.c, compiled into the gate unchanged, so that
 * the gate reads compute-sanitizer's reports with the harness's own code
 * (sanpass.c). One source, two programs: fix it in 9_Verification/sanitize. */
#include "../sanitize/sz_expect.c"
