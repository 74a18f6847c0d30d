#include "probe/kv_rows.h"

#include <cstring>

#include "probe/capture.h"
#include "probe/ggml_api.h"
#include "probe/graph_topology.h"

namespace llmscope::probe {
namespace {

const ggml_tensor *cacheOf(const ggml_tensor *node)
{
    return node->src[2];
}

int64_t rowCount(const ggml_tensor *node)
{
    return node->src[1]->ne[0];
}

// Reads n bytes at offset of t: host memory directly, a device's with ggml_backend_tensor_get.
void readBytes(const ggml_tensor *t, void *dst, size_t offset, size_t n)
{
    if (isDirect(t) || !t->buffer)
        std::memcpy(dst, static_cast<const char *>(t->data) + offset, n);
    else
        ggml().tensorGet(t, dst, offset, n);
}

} // namespace

bool isCacheWrite(const ggml_tensor *node)
{
    const GgmlApi &api = ggml();
    if (node->op != GGML_OP_SET_ROWS || !isKvCache(node))
        return false;
    const ggml_tensor *values = node->src[0], *index = node->src[1], *cache = cacheOf(node);
    if (!values || !index || !cache)
        return false;
    const bool oneIndex = index->ne[1] == 1 && index->ne[2] == 1 && index->ne[3] == 1 &&
        (index->type == GGML_TYPE_I64 || index->type == GGML_TYPE_I32);
    const bool twoDims = node->ne[2] == 1 && node->ne[3] == 1 && values->ne[2] == 1 && values->ne[3] == 1;
    const bool rows = size_t(node->nb[1]) * size_t(node->ne[1]) == api.nbytes(node); // whole rows, packed
    // A transposed V cache (flash attention off) is written one element a row, an index entry
    // for each: read back one by one that costs a device read per element; described only.
    const bool wide = node->ne[0] > 1;
    const bool floats = aclDtype(node->type) >= 0 || (api.typeTraits && api.typeTraits(node->type)->to_float);
    return oneIndex && twoDims && rows && wide && floats && isReadable(node);
}

Tensor describeCacheWrite(const ggml_tensor *node, bool payload)
{
    const int32_t acl = aclDtype(node->type);
    Tensor out;
    out.dims = {rowCount(node), node->ne[0]};
    out.dtype = acl >= 0 ? acl : 0;
    out.hasData = payload;
    out.setAttr(kKvRowsAttr, "written");
    out.setAttr(kKvTypeAttr, ggml().typeName(node->type));
    return out;
}

uint64_t cacheWriteBytes(const ggml_tensor *node)
{
    const int32_t acl = aclDtype(node->type);
    return uint64_t(rowCount(node)) * uint64_t(node->ne[0]) * (acl >= 0 ? elementSize(acl) : sizeof(float));
}

bool gatherCacheWrite(const ggml_tensor *node, const ggml_tensor *index, uint8_t *dst, std::vector<int64_t> &cells)
{
    const GgmlApi &api = ggml();
    const int64_t n = rowCount(node), width = node->ne[0];
    const size_t rowBytes = size_t(node->nb[1]);
    const int32_t acl = aclDtype(node->type);
    const size_t outRow = size_t(width) * (acl >= 0 ? elementSize(acl) : sizeof(float));
    cells.assign(size_t(n), -1);
    if (!index->data || !node->data) {
        std::memset(dst, 0, outRow * size_t(n));
        return false;
    }
    if (index->type == GGML_TYPE_I64) {
        readBytes(index, cells.data(), 0, size_t(n) * sizeof(int64_t));
    } else {
        std::vector<int32_t> i32(static_cast<size_t>(n));
        readBytes(index, i32.data(), 0, i32.size() * sizeof(int32_t));
        for (size_t i = 0; i < i32.size(); ++i)
            cells[i] = i32[i];
    }
    std::vector<uint8_t> raw(acl >= 0 ? 0 : rowBytes);
    for (int64_t i = 0; i < n; ++i) {
        uint8_t *out = dst + size_t(i) * outRow;
        const int64_t cell = cells[size_t(i)];
        if (cell < 0 || cell >= node->ne[1]) { // the kernel would abort; nothing was written
            std::memset(out, 0, outRow * size_t(n - i));
            return false;
        }
        if (acl >= 0) {
            readBytes(node, out, size_t(cell) * rowBytes, outRow);
        } else {
            readBytes(node, raw.data(), size_t(cell) * rowBytes, rowBytes);
            api.typeTraits(node->type)->to_float(raw.data(), reinterpret_cast<float *>(out), width);
        }
    }
    return true;
}

} // namespace llmscope::probe
