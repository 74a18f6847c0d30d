/* llmscope's probe C ABI: an engine that is not ggml reports its own operations and tensors,
 * and llmscope dumps them in msit's layout with the same selection options (-ids, -er,
 * -opname, -child, -time, -stp, --type tensor|stats, -sd).
 *
 * The functions are declared weak: a program built with this header runs unchanged without
 * the probe (the function pointers are then null); run under `llmscope dump --exec`, they
 * resolve to the preloaded probe. Check one before calling:
 *
 *     if (llmscope_probe_version && llmscope_probe_version() >= 1) { ... }
 *
 * Operations are named by their msit folder path: "{index}_{Name}" parts joined by '/', e.g.
 * "2_Decoder/1_Linear" is operation id 2_1 of type Linear. Calls are thread-safe; a round's
 * tensors are copied before the call returns. No function aborts or throws: bad arguments
 * return -1 and the probe warns once. */
#ifndef LLMSCOPE_PROBE_H
#define LLMSCOPE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LLMSCOPE_PROBE_ABI_VERSION 2

#ifndef LLMSCOPE_PROBE_API
#define LLMSCOPE_PROBE_API __attribute__((weak)) /* the probe itself defines them strong */
#endif

/* Element types: msit's (ACL) dtype codes. */
enum llmscope_dtype {
    LLMSCOPE_FLOAT32 = 0,
    LLMSCOPE_FLOAT16 = 1,
    LLMSCOPE_INT8 = 2,
    LLMSCOPE_INT32 = 3,
    LLMSCOPE_UINT8 = 4,
    LLMSCOPE_INT16 = 6,
    LLMSCOPE_INT64 = 9,
    LLMSCOPE_FLOAT64 = 11,
    LLMSCOPE_BFLOAT16 = 27
};

/* The ABI version when the probe is loaded and dumping; 0 when it passes everything through. */
LLMSCOPE_PROBE_API int llmscope_probe_version(void);

/* Starts a round (msit's execute count: one forward pass). Returns its number, -1 when inactive. */
LLMSCOPE_PROBE_API int64_t llmscope_probe_begin_round(void);

/* 1 when this round's selection wants that side of the operation (before/after execution,
 * inputs/outputs), 0 when not: skip preparing tensors nobody will write. -1 on bad arguments. */
LLMSCOPE_PROBE_API int llmscope_probe_wants(const char *op_path, int before, int input);

/* Reports tensor `index` of an operation's inputs (input=1) or outputs (input=0), taken
 * before (before=1) or after execution. dims are outermost first; bytes must equal the
 * product of dims times the element size. Returns 1 when queued, 0 when not selected, -1 on
 * bad arguments. */
LLMSCOPE_PROBE_API int llmscope_probe_tensor(const char *op_path, int before, int input, int index, int dtype,
                                             const int64_t *dims, int ndims, const void *data, size_t bytes);

/* Version 2: what runs an operation and with which parameters, for msit's op and kernel info
 * (--type op kernel: operation_io_tensors/ and kernel_io_tensors/ rows, which the tensors
 * reported for it complete with dtypes, shapes and files) and -tiling (op_param.json beside
 * its tensors). backend: e.g. "CPU", "CUDA0"; params_json: a JSON object, e.g.
 * {"eps":1e-5}, or null. Returns 1 when recorded, 0 when not selected, -1 on bad arguments. */
LLMSCOPE_PROBE_API int llmscope_probe_op_info(const char *op_path, const char *backend, const char *params_json);

/* Ends the round: its tensors go to the writer. */
LLMSCOPE_PROBE_API void llmscope_probe_end_round(void);

#ifdef __cplusplus
}
#endif

#endif /* LLMSCOPE_PROBE_H */
