#include "probe/capture.h"

#include <cstring>
#include <vector>

#include "probe/ggml_api.h"
#include "ggml-backend-impl.h" // the buffer interface, to see whether get_tensor exists

namespace llmscope::probe {

size_t elementSize(int32_t acl)
{
    switch (acl) {
    case 0:
    case 3: return 4;
    case 1:
    case 27:
    case 6: return 2;
    case 2: return 1;
    case 9:
    case 11: return 8;
    default: return 0;
    }
}

int32_t aclDtype(ggml_type t)
{
    switch (t) {
    case GGML_TYPE_F32: return 0;
    case GGML_TYPE_F16: return 1;
    case GGML_TYPE_BF16: return 27;
    case GGML_TYPE_I8: return 2;
    case GGML_TYPE_I16: return 6;
    case GGML_TYPE_I32: return 3;
    case GGML_TYPE_I64: return 9;
    case GGML_TYPE_F64: return 11;
    default: return -1;
    }
}

bool isReadable(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    const ggml_tensor *base = t->view_src ? t->view_src : t;
    ggml_backend_buffer_t buf = t->buffer ? t->buffer : base->buffer;
    if (!buf || (api.bufferIsHost && api.bufferIsHost(buf)))
        return true;
    return buf->iface.get_tensor != nullptr;
}

bool isWeight(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    const ggml_tensor *base = t->view_src ? t->view_src : t;
    return api.bufferUsage && base->buffer && api.bufferUsage(base->buffer) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
}

bool writesData(const ggml_tensor *t)
{
    switch (t->op) {
    case GGML_OP_NONE:
    case GGML_OP_RESHAPE:
    case GGML_OP_TRANSPOSE:
    case GGML_OP_VIEW:
    case GGML_OP_PERMUTE: return false;
    default: return true;
    }
}

Tensor describe(const ggml_tensor *t, bool payload)
{
    const GgmlApi &api = ggml();
    Tensor out;
    int nd = GGML_MAX_DIMS;
    while (nd > 1 && t->ne[nd - 1] == 1)
        --nd;
    for (int d = nd - 1; d >= 0; --d)
        out.dims.push_back(t->ne[d]);
    const int32_t acl = aclDtype(t->type);
    out.dtype = acl >= 0 ? acl : 4;
    if (acl < 0) {
        out.setAttr(kEngineDTypeAttr, api.typeName(t->type));
        if (payload) {
            out.setAttr(kEngineDimsAttr, joinDims(out.dims));
            out.dims = {static_cast<int64_t>(api.nbytes(t))};
        }
    }
    out.hasData = payload;
    return out;
}

uint64_t denseBytes(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    const int32_t acl = aclDtype(t->type);
    return acl < 0 ? api.nbytes(t) : uint64_t(api.nelements(t)) * elementSize(acl);
}

bool isDirect(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    const bool host = !t->buffer || (api.bufferIsHost && api.bufferIsHost(t->buffer));
    return t->data && host && (aclDtype(t->type) < 0 || api.isContiguous(t));
}

void copyDense(const ggml_tensor *t, uint8_t *dst, const uint8_t *fetched)
{
    const GgmlApi &api = ggml();
    const size_t span = api.nbytes(t);
    if (!t->data || !span || !isReadable(t)) // plans describe unreadable tensors only
        return;
    const int32_t acl = aclDtype(t->type);
    if (fetched && (acl < 0 || api.isContiguous(t))) { // read before: its memory may be another's now
        std::memcpy(dst, fetched, span);
        return;
    }
    if (isDirect(t)) {
        std::memcpy(dst, t->data, span);
        return;
    }
    if (acl < 0 || api.isContiguous(t)) { // device memory laid out as the payload
        api.tensorGet(t, dst, 0, span);
        return;
    }
    // Strided: fetch the span, then gather the elements in order.
    std::vector<uint8_t> fetchedHere;
    if (!fetched) {
        fetchedHere.resize(span);
        api.tensorGet(t, fetchedHere.data(), 0, span);
        fetched = fetchedHere.data();
    }
    const size_t es = elementSize(acl);
    const bool denseRows = size_t(t->nb[0]) == es; // rows copy whole, only rows are strided
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
                const uint8_t *row = fetched + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
                if (denseRows) {
                    std::memcpy(dst, row, es * size_t(t->ne[0]));
                    dst += es * size_t(t->ne[0]);
                    continue;
                }
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0) {
                    std::memcpy(dst, row + i0 * t->nb[0], es);
                    dst += es;
                }
            }
}

} // namespace llmscope::probe
