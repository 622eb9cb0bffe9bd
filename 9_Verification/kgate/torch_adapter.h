/* torch_adapter.h: how the gate calls a PyTorch candidate.
 *
 * A PyTorch candidate defines an entry function on tensors (`forward`, or
 * the name after `// kgate-entry:`), e.g. `torch::Tensor forward(torch::Tensor
 * x)`, and returns its result. The gate appends an adapter to the source: the
 * task's extern "C" launch(), which wraps the gate's device buffers as
 * tensors (torch::from_blob, on the current device; the blur input as the
 * strided view it is), makes the gate's stream PyTorch's current stream,
 * calls the entry and copies the result into the gate's output on that
 * stream, inside the call: the judge's clock counts the copy, and the judge
 * subtracts what its own copy of the same results costs (measured before
 * the candidate is loaded), so the candidate is not charged for a copy its
 * PyTorch style implies but the gate's contract adds. The harness then runs
 * it like any candidate: the same checks, tolerances and timing. An
 * exception the candidate throws (a TORCH_CHECK) is caught and reported
 * through kgate_adapter_error; before a checked call the adapter fills the
 * caching allocator's free memory with NaN (kgate_adapter_poison), so an
 * output element the candidate never writes shows. The harness honours
 * these two hooks only for a PyTorch candidate (the judge says so); a plain
 * candidate that defines a kgate_adapter_* symbol is refused. Host-only
 * C11, unit-tested.
 */
#ifndef KGATE_TORCH_ADAPTER_H
#define KGATE_TORCH_ADAPTER_H

#include <stddef.h>

#include "tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The entry function's name: the word after "kgate-entry:", else "forward". */
void kg_torch_entry_of(const char *src, char *out, size_t len);
int kg_torch_entry_valid(const char *entry);

/* The adapter's source for task t calling `entry`; 0, or -1 when it does
 * not fit (or the entry is not an identifier). */
int kg_torch_adapter(const kg_task *t, const char *entry, char *buf, size_t len);

/* 1 when the shared object at path defines (exports) a symbol whose name
 * starts with "kgate_adapter_", the PyTorch adapter's hooks (its name in
 * which); 0 when it defines none; -1 when it is not a readable 64-bit ELF
 * file. The gate refuses a plain candidate for which this is 1 (L1), before
 * anything loads it: the hooks are honoured only for the adapter of a
 * PyTorch candidate. The file is the compiler's output for hostile source:
 * every offset and size is checked before use. */
int kg_so_defines_hooks(const char *path, char *which, size_t len);

/* What the task's entry looks like, for messages and --help. */
const char *kg_torch_signature(const kg_task *t);

#ifdef __cplusplus
}
#endif
#endif
