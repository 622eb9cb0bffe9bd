/* shared_sz_proc.c: the sanitize harness's sz_proc.c, compiled into the gate unchanged, so that
 * the gate reads compute-sanitizer's reports with the harness's own code
 * (sanpass.c). One source, two programs: fix it in 9_Verification/sanitize. */
#include "../sanitize/sz_proc.c"
