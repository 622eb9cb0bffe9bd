/* kgate's start-up checks: the harness's sandbox must reach each GPU
 * (and load libtorch, for PyTorch candidates), PyTorch's probe, the nvcc
 * to use, and running a trusted helper program with a deadline. */
#ifndef KGATE_SETUP_H
#define KGATE_SETUP_H
#include "pipeline.h"

int harness_selftest(kg_gate *g, int d, const char *preload, char allow[][160], int *n_allow, char *why, size_t len);
int run_capture(const char *const *argv, double timeout_s, char *out, size_t len);
void torch_probe(kg_gate *g);
void resolve_nvcc(const char *nvcc, char *out, size_t len);
int sandbox_gpu_checks(kg_gate *g, kg_sandbox *sb);

#endif
