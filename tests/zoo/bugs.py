#!/usr/bin/env python3
"""The kernel zoo: faults of the kinds llama.cpp has shipped in its CPU and Vulkan backends and
fixed, each written fresh as a small edit of the shipped source (ggml/src/ggml-cpu,
ggml/src/ggml-vulkan, and llama.cpp's own src for the KV cache's bookkeeping), and one change
that only rounds differently, as a control.
scripts/kernel_zoo builds a libggml-cpu.so (or libggml-vulkan.so, libllama.so) for each;
tests/probe/tst_kernelzoo.cpp and tst_vulkanzoo.cpp hunt each one against the stock library.

  bugs.py list [cpu|vulkan|llama]  names of the backend's faults (default cpu), one a line
  bugs.py apply NAME SRC      makes NAME's edit in the source tree SRC (exactly one match, or fails)
  bugs.py describe NAME       what it does, in one line
  bugs.py digest NAME         a digest of NAME's edit (scripts/kernel_zoo rebuilds what changed)
  bugs.py fix vulkan SRC      the edits that let this llama.cpp's Vulkan backend build with
                              Debian bookworm's glslc and Vulkan headers (no shader or device
                              path the software device runs is changed)
  bugs.py fixes-digest vulkan a digest of those edits

Each edit names its file, the text it replaces (found exactly once) and the new text.
"""
import hashlib
import json
import sys

BUGS = {
    # A thread's chunk of a matrix product left short: with several threads, the last chunk
    # stops one row of src1 early, so that output column (the last token's, in a prompt; the
    # whole chunk for one token) is never written (the kind of #16956, #11824).
    "chunk": {
        "file": "ggml/src/ggml-cpu/ggml-cpu.c",
        "old": "\n        const int64_t ir1_end = MIN(ir1_start + dr1, nr1);\n",
        "new": "\n        const int64_t ir1_end = MIN(ir1_start + dr1, nr1) - (nth > 1 && current_chunk == nchunk0 * nchunk1 - 1);\n",
        "about": "MUL_MAT: with several threads the last chunk stops one row early (never written)",
    },
    # The same slip in the other dimension: the last chunk stops one row of src0 early, so one
    # output feature of every column is never written. On a wide model that is a small share
    # of the output (1/2048 of Qcur at 2048 wide: under ggml's cross-backend MUL_MAT budget,
    # far above rounding), as #16956 was.
    "chunk-row": {
        "file": "ggml/src/ggml-cpu/ggml-cpu.c",
        "old": "\n        const int64_t ir0_end = MIN(ir0_start + dr0, nr0);\n",
        "new": "\n        const int64_t ir0_end = MIN(ir0_start + dr0, nr0) - (nth > 1 && current_chunk == nchunk0 * nchunk1 - 1);\n",
        "about": "MUL_MAT: with several threads the last chunk stops one weight row early (one output feature never written)",
    },
    # The SIMD scale's scalar tail dropped: the elements past the last full vector step keep
    # their values (the kind of #16443, #16558). RMS_NORM scales its rows with it.
    "simd-tail": {
        "file": "ggml/src/ggml-cpu/vec.h",
        "old": "        // leftovers\n        for (int i = np; i < n; ++i) {\n            y[i] *= v;\n        }\n    #endif\n",
        "new": "    #endif\n",
        "about": "ggml_vec_scale_f32: the tail after the last full SIMD step is left unscaled (RMS_NORM)",
    },
    # ROPE's sin/cos cache built for a thread's first position and reused for the positions
    # after it.
    "rope-cache": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "                if (last_i2 != i2) {\n                    if (!mrope_used) {",
        "new": "                if (last_i2 < 0) {\n                    if (!mrope_used) {",
        "about": "ROPE: the sin/cos cache of a thread's first position reused for the later positions",
    },
    # Flash attention reads the mask one row up: each query but the first is masked as the
    # query before it (it cannot see itself).
    "mask-row": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "(char *) mask->data + iq1*mask->nb[1] +",
        "new": "(char *) mask->data + (iq1 > 0 ? iq1 - 1 : 0)*mask->nb[1] +",
        "about": "FLASH_ATTN_EXT: each query row reads the mask row above its own",
    },
    # GET_ROWS gathers the row before the last one's for the last index (a prompt's last
    # token gets the embedding of the token before it).
    "wrong-row": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "        const int64_t i01 = *(int32_t *) ((char *) src1->data + i10*nb10 + i11*nb11 + i12*nb12);\n\n        GGML_ASSERT(i01 >= 0 && i01 < ne01);\n\n        ggml_vec_cpy_f32(nc,",
        "new": "        const int64_t i01 = *(int32_t *) ((char *) src1->data + (i10 - (i10 > 0 && i10 == ne10 - 1))*nb10 + i11*nb11 + i12*nb12);\n\n        GGML_ASSERT(i01 >= 0 && i01 < ne01);\n\n        ggml_vec_cpy_f32(nc,",
        "about": "GET_ROWS: the last index gathers the row the index before it names",
    },
    # A single token's matrix product (one src1 row) caps each thread's share at one chunk,
    # so rows past threads x 64 are never written: the FFN's products of a decoded token and
    # of the prompt's last layer (which runs on its last token only).
    "single-token": {
        "file": "ggml/src/ggml-cpu/ggml-cpu.c",
        "old": "\n    const int64_t dr0 = (nr0 + nchunk0 - 1) / nchunk0;\n",
        "new": "\n    const int64_t dr0 = nr1 == 1 ? MIN((nr0 + nchunk0 - 1) / nchunk0, chunk_size) : (nr0 + nchunk0 - 1) / nchunk0;\n",
        "about": "MUL_MAT, one token: each thread computes at most one 64-row chunk; rows past that are never written",
    },
    # Flash attention, a single query (a decoded token; a prompt has several): the loop over the
    # KV cells starts one cell late, so the token never attends to the first position. The
    # prompt's round is untouched: only the generated tokens' rounds depart.
    "single-query": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "        for (int64_t ic = ic_start; ic < ic_end; ++ic) {",
        "new": "        for (int64_t ic = ic_start + (neq1 == 1 ? 1 : 0); ic < ic_end; ++ic) {",
        "about": "FLASH_ATTN_EXT, one query: the loop over the KV cells starts one cell late (decode rounds only)",
    },
    # A write into the KV cache loses a batch's last row: the thread range of SET_ROWS ends one
    # row short when it writes several (a prompt), so the prompt's last token gets no keys or
    # values in the cache; one row (a decoded token) is written right (a thread range's
    # off-by-one, as the chunk fault's, in the kernel that fills the cache).
    "cache-last-row": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "    const int64_t ir1 = std::min(ir0 + dr, nr);\n\n    const size_t rs = ggml_row_size(src0->type, nc);",
        "new": "    const int64_t ir1 = std::min(ir0 + dr, nr) - (nr > 1 && ir0 + dr >= nr);\n\n    const size_t rs = ggml_row_size(src0->type, nc);",
        "about": "SET_ROWS of several rows (a prompt into the KV cache): the last row is never written",
    },
    # A row written into the wrong cell: the last row of a batch goes one cell early, over the
    # row before it, and its own cell keeps what it held (the kind of bug cell placement has:
    # the right values in the wrong place).
    "cache-wrong-cell": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "                const int64_t i1 = *(idx_t *) ((char *) src1->data + i10*nb10 + i11*nb11 + i12*nb12);\n",
        "new": "                const int64_t i1 = *(idx_t *) ((char *) src1->data + i10*nb10 + i11*nb11 + i12*nb12) - (nr > 1 && i == nr - 1);\n",
        "about": "SET_ROWS of several rows: the last row is written one cell early, over the row before it",
    },
    # Rows stored in a q4_0 KV cache with a neighbour's block scale: every block past a row's
    # first takes the scale of the block before it (the integers are its own), so a quantized
    # cache holds values scaled by another block's largest one; float caches and products of
    # float weights never quantize to q4_0 (the kind of the block-layout bugs quantized types
    # have had in their row conversions).
    "cache-q4-scale": {
        "file": "ggml/src/ggml-cpu/quants.c",
        "old": "void quantize_row_q4_0(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {\n    quantize_row_q4_0_ref(x, y, k);\n}",
        "new": "void quantize_row_q4_0(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {\n    quantize_row_q4_0_ref(x, y, k);\n    for (int64_t i = k / QK4_0 - 1; i > 0; --i) ((block_q4_0 *) y)[i].d = ((block_q4_0 *) y)[i - 1].d;\n}",
        "about": "q4_0 conversion (a q4_0 KV cache's rows): each block past the first takes the scale of the block before it",
    },
    # ROPE on float16 data turns the wrong way: the keys a context shift re-rotates in a
    # float16 cache (in place, in a graph of its own) go forward where they should go back; the
    # model's own ROPE, on float32 queries and keys, is right (the kind of a sign lost in one
    # type's instantiation of a kernel).
    "shift-rope": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "                ggml_compute_forward_rope_flt<ggml_fp16_t>(params, dst, true);",
        "new": "                ggml_compute_forward_rope_flt<ggml_fp16_t>(params, dst, false);",
        "about": "ROPE on float16 (a context shift's re-rotation of a float16 KV cache) turns the wrong way",
    },
    # A q8_0 weight's dot product (the AVX2 loop of ggml_vec_dot_q8_0_q8_0, which AVX-512 machines
    # run too) scales a row's last block by the previous block's activation scale: every product
    # of q8_0 weights is off in its last 32 columns' share, the rest right (the kind of the
    # block-scale bugs quantized kernels have had; the test's replay must blame the kernel, not
    # the quantization).
    "q8-dot-scale": {
        "file": "ggml/src/ggml-cpu/arch/x86/quants.c",
        "old": "        // Compute combined scale for the block\n        const __m256 d = _mm256_set1_ps(GGML_CPU_FP16_TO_FP32(x[ib].d) * GGML_CPU_FP16_TO_FP32(y[ib].d));",
        "new": "        // Compute combined scale for the block\n        const __m256 d = _mm256_set1_ps(GGML_CPU_FP16_TO_FP32(x[ib].d) * GGML_CPU_FP16_TO_FP32(y[ib > 0 && ib == nb - 1 ? ib - 1 : ib].d));",
        "about": "q8_0 dot product (AVX2 loop): a row's last block takes the previous block's activation scale",
    },
    # A q4_0 block's nibbles unpacked in the wrong order (the high nibbles taken as the first
    # 16 weights): the kind of the nibble-order bugs llama.cpp's q4_0 kernels and repackers
    # have had. The AVX2 loop (which AVX-512 machines run too) does it to a row's last block.
    "q4-nibbles": {
        "file": "ggml/src/ggml-cpu/arch/x86/quants.c",
        "old": "        const __m256 d = _mm256_set1_ps( GGML_CPU_FP16_TO_FP32(x[ib].d) * GGML_CPU_FP16_TO_FP32(y[ib].d) );\n\n        __m256i qx = bytes_from_nibbles_32(x[ib].qs);\n",
        "new": "        const __m256 d = _mm256_set1_ps( GGML_CPU_FP16_TO_FP32(x[ib].d) * GGML_CPU_FP16_TO_FP32(y[ib].d) );\n\n        __m256i qx = bytes_from_nibbles_32(x[ib].qs);\n        if (ib > 0 && ib == nb - 1) qx = _mm256_permute2x128_si256(qx, qx, 1);\n",
        "about": "q4_0 dot product (AVX2 loop): a row's last block takes its high nibbles as its first 16 weights",
    },
    # A K-quant's packed 6-bit sub-block scales unpacked wrong: the high two bits of sub-blocks
    # 4-7's scales read from the wrong place (the kind of the scale-unpacking slips K-quant
    # kernels have had). The q4_K dot product's AVX2 loop (which AVX-512 machines run too).
    "q4k-scales": {
        "file": "ggml/src/ggml-cpu/arch/x86/quants.c",
        "old": "        utmp[1] = (utmp[2] & kmask2) | (((utmp[0] >> 6) & kmask3) << 4);\n        utmp[2] = uaux;\n        utmp[0] &= kmask1;\n\n        const uint8_t * GGML_RESTRICT q4 = x[i].qs;\n        const int8_t  * GGML_RESTRICT q8 = y[i].qs;\n\n        const __m256i mins_and_scales",
        "new": "        utmp[1] = (utmp[2] & kmask2) | (((utmp[0] >> 4) & kmask3) << 4);\n        utmp[2] = uaux;\n        utmp[0] &= kmask1;\n\n        const uint8_t * GGML_RESTRICT q4 = x[i].qs;\n        const int8_t  * GGML_RESTRICT q8 = y[i].qs;\n\n        const __m256i mins_and_scales",
        "about": "q4_K dot product (AVX2 loop): sub-blocks 4-7 take the high bits of their 6-bit scales from the wrong place",
    },
    # The CPU's fused RMS_NORM+MUL (ggml-cpu fuses the pair since #22423) leaves the last 8
    # columns of each row unnormalized; the unfused RMS_NORM and MUL are untouched, so a
    # program observed node by node (fusion off) computes right (the kind of #14540, a fused
    # norm's bug that only the fused path had).
    "fused-norm-tail": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "                    for (int64_t i00 = 0; i00 < ne00; i00++) {\n                        y[i00] = x[i00] * scale * w[i00];\n                    }\n",
        "new": "                    for (int64_t i00 = 0; i00 < ne00; i00++) {\n                        y[i00] = (i00 < ne00 - 8 ? x[i00] * scale : x[i00]) * w[i00];\n                    }\n",
        "about": "RMS_NORM+MUL fused: the last 8 columns of each row are left unnormalized (the unfused ops are right)",
    },
    # Vulkan's fused RMS_NORM+MUL takes its epsilon from the MUL node's parameters (zero) instead
    # of the norm's: llama.cpp #14540 (incoherent Mistral output on Vulkan), fixed by #14545
    # ("the fused operation was grabbing the epsilon value from the wrong place"). The unfused
    # RMS_NORM is right.
    "vk-fused-norm-eps": {
        "backend": "vulkan",
        "file": "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
        "old": "    vk_op_binary_push_constants bin = ggml_vk_rms_norm_push_constants(src0, src1, dst, op_params[0], num_partials);",
        "new": "    vk_op_binary_push_constants bin = ggml_vk_rms_norm_push_constants(src0, src1, dst, ((const float *) dst->op_params)[0], num_partials);",
        "about": "Vulkan RMS_NORM+MUL fused: epsilon read from the MUL's parameters, not the norm's (#14540)",
    },
    # Vulkan's ROPE+VIEW+SET_ROWS epilogue (the rotated keys written straight into the KV cache,
    # #16769) puts a batch's last row one cell late, where no row of the batch goes, and leaves
    # its own cell as it was; the unfused SET_ROWS places every row right (the kind of the cell
    # placement bugs, in the fused path only).
    "vk-rope-cache-cell": {
        "backend": "vulkan",
        "file": "ggml/src/ggml-vulkan/vulkan-shaders/rope_funcs.glsl",
        "old": "        idst = i1*p.nb11 + i0;\n        idst += rope_data_i[i2].x * p.set_rows_stride;",
        "new": "        idst = i1*p.nb11 + i0;\n        idst += (rope_data_i[i2].x + (i2 > 0 && i2 + 1 == p.ne02 ? 1u : 0u)) * p.set_rows_stride;",
        "about": "Vulkan ROPE+VIEW+SET_ROWS fused: a batch's last row written one cell late, its own cell left as it was",
    },
    # Vulkan's GET_ROWS takes the row before the one named from a small source (fewer than 64
    # rows: a prompt's last layer picking its last token's row out of the batch's), right from
    # the embedding's table (the kind of the row-index bugs gathering kernels have had).
    "vk-get-rows-small": {
        "backend": "vulkan",
        "file": "ggml/src/ggml-vulkan/vulkan-shaders/get_rows.comp",
        "old": "            const uint i01 = data_b[get_boffset() + i10*p.nb10 + i11*p.nb11 + i12*p.nb12];",
        "new": "            const uint i01 = data_b[get_boffset() + i10*p.nb10 + i11*p.nb11 + i12*p.nb12] - ((p.ne01 < 64 && data_b[get_boffset() + i10*p.nb10 + i11*p.nb11 + i12*p.nb12] > 0) ? 1u : 0u);",
        "about": "Vulkan GET_ROWS from a source of fewer than 64 rows: the row before the one named",
    },
    # Vulkan's matrix-vector product of q8_0 weights (a decoded token's, and a prompt of up to
    # eight tokens') takes a row's last block with the scale of the block before it: the
    # q8-dot-scale slip in the device's shader, whose weights are dequantized to float32 and
    # meet float32 activations (the kind of the block-indexing bugs quantized shaders have had).
    "vk-q8-mmv-scale": {
        "backend": "vulkan",
        "file": "ggml/src/ggml-vulkan/vulkan-shaders/mul_mat_vec.comp",
        "old": "            const vec2 dm = get_dm(ib, a_offset);",
        "new": "#if defined(DATA_A_Q8_0)\n            const vec2 dm = get_dm(ib - ((col >= QUANT_K && col / QUANT_K + 1 == p.ncols / QUANT_K) ? 1u : 0u), a_offset);\n#else\n            const vec2 dm = get_dm(ib, a_offset);\n#endif",
        "about": "Vulkan q8_0 matrix-vector product: a row's last block takes the previous block's scale",
    },
    # llama.cpp itself (libllama): a sequence copied between parallel slots that have cache
    # streams of their own (llama_memory_seq_cp across streams) is copied layer by layer outside
    # any graph; an inverted guard copies each layer's keys and never its values, so the new slot
    # reads values its stream never held (the kind of #14742, where a multi-stream path left the
    # streams past the first behind).
    "seq-copy-values": {
        "backend": "llama",
        "file": "src/llama-kv-cache.cpp",
        "old": "                if (layer.v_stream[ssrc]) {\n                    ggml_backend_tensor_copy(layer.v_stream[ssrc], layer.v_stream[sdst]);",
        "new": "                if (!layer.v_stream[ssrc]) {\n                    ggml_backend_tensor_copy(layer.v_stream[ssrc], layer.v_stream[sdst]);",
        "about": "llama.cpp's copy of a sequence between cache streams (parallel slots) copies the keys and never the values",
    },
    # The control: RMS_NORM sums its squares in float instead of double. Rounding only: a
    # correct backend that sums differently.
    # The experts' products (MUL_MAT_ID) of a token's last chosen expert read the activations of
    # the slot before it, where each slot has its own (the down projection, after each expert's
    # gate and up): the right weights meet the wrong row (the kind of the row-mapping bugs the
    # experts' gathered products have had).
    "experts-slot": {
        "file": "ggml/src/ggml-cpu/ggml-cpu.c",
        "old": "                const int64_t  i11 = id % ne11;\n",
        "new": "                const int64_t  i11 = (id - (ne11 > 1 && id == ne11 - 1)) % ne11;\n",
        "about": "MUL_MAT_ID: a token's last chosen expert meets the previous slot's activations (the experts' down projection)",
    },
    "control-rounding": {
        "file": "ggml/src/ggml-cpu/ops.cpp",
        "old": "                ggml_float sum = 0.0;\n                // worth switching to explicit SIMD?\n                for (int64_t i00 = 0; i00 < ne00; i00++) {\n                    sum += (ggml_float)(x[i00] * x[i00]);",
        "new": "                float sum = 0.0f;\n                // worth switching to explicit SIMD?\n                for (int64_t i00 = 0; i00 < ne00; i00++) {\n                    sum += x[i00] * x[i00];",
        "about": "control: RMS_NORM sums its squares in float, not double (rounding only)",
    },
}


# Debian bookworm's glslc (2023.2) has no GL_KHR_cooperative_matrix and its Vulkan headers
# (1.3.239) no VK_EXT_layer_settings. The flash attention decode shaders compiled for Intel's
# cooperative matrices, and the validation layer's settings, are left out where they are not
# supported, as the backend already does for its other optional extensions.
FIXES = {
    "vulkan": [
        {
            "file": "ggml/src/ggml-vulkan/vulkan-shaders/vulkan-shaders-gen.cpp",
            "old": '    string_to_spv("fa_decode_ph1", "flash_attn_decode_phase_1.comp", {}, true, true, false, false);\n'
                   '    string_to_spv("fa_decode_ph2", "flash_attn_decode_phase_2.comp", {}, true, true, false, false);\n',
            "new": '#if defined(GGML_VULKAN_COOPMAT_GLSLC_SUPPORT)\n'
                   '    string_to_spv("fa_decode_ph1", "flash_attn_decode_phase_1.comp", {}, true, true, false, false);\n'
                   '    string_to_spv("fa_decode_ph2", "flash_attn_decode_phase_2.comp", {}, true, true, false, false);\n'
                   '#endif\n',
        },
        {
            "file": "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
            "old": '            ggml_vk_create_pipeline(device, pipelines.first, "xe_fa_decode_ph1", fa_decode_ph1_cm1_len,',
            "new": '#if defined(GGML_VULKAN_COOPMAT_GLSLC_SUPPORT)\n'
                   '            ggml_vk_create_pipeline(device, pipelines.first, "xe_fa_decode_ph1", fa_decode_ph1_cm1_len,',
        },
        {
            "file": "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
            "old": 'split_p_per_iter_ph2, split_p_chunk, out_dim_per_wg }, 1, false, true, xe_native_sub_group_size);\n',
            "new": 'split_p_per_iter_ph2, split_p_chunk, out_dim_per_wg }, 1, false, true, xe_native_sub_group_size);\n'
                   '#endif\n',
        },
        {
            "file": "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
            "old": "    std::vector<vk::LayerSettingEXT> settings = {",
            "new": "#if defined(VK_EXT_layer_settings)\n    std::vector<vk::LayerSettingEXT> settings = {",
        },
        {
            "file": "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
            "old": "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);\n",
            "new": "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);\n"
                   "#else\n"
                   "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n"
                   "#endif\n",
        },
    ],
}


def edit(src, e, what):
    path = src + "/" + e["file"]
    with open(path) as f:
        text = f.read()
    found = text.count(e["old"])
    if found != 1:
        print("bugs.py: %s: the text to replace is found %d times in %s (another llama.cpp?)" % (what, found, path),
              file=sys.stderr)
        return False
    with open(path, "w") as f:
        f.write(text.replace(e["old"], e["new"]))
    return True


def digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def main(argv):
    if len(argv) in (2, 3) and argv[1] == "list":
        backend = argv[2] if len(argv) == 3 else "cpu"
        print("\n".join(n for n, b in BUGS.items() if b.get("backend", "cpu") == backend))
        return 0
    if len(argv) == 3 and argv[1] == "digest" and argv[2] in BUGS:
        print(digest(BUGS[argv[2]]))
        return 0
    if len(argv) == 3 and argv[1] == "describe" and argv[2] in BUGS:
        print(BUGS[argv[2]]["about"])
        return 0
    if len(argv) == 4 and argv[1] == "apply" and argv[2] in BUGS:
        return 0 if edit(argv[3], BUGS[argv[2]], argv[2]) else 1
    if len(argv) == 3 and argv[1] == "fixes-digest" and argv[2] in FIXES:
        print(digest(FIXES[argv[2]]))
        return 0
    if len(argv) == 4 and argv[1] == "fix" and argv[2] in FIXES:
        return 0 if all(edit(argv[3], e, "fix %d" % i) for i, e in enumerate(FIXES[argv[2]])) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
