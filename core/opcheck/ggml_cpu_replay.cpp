#include "core/opcheck/ggml_cpu_replay.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

#include <dlfcn.h>
#include <libgen.h>

#include <ggml-backend.h>
#include <ggml.h>

#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"

namespace llmscope::opcheck {
namespace {

// The CPU backend, made once (its variants live beside libggml), one thread: ops are replayed
// one at a time under the lock, as a reference needs no speed.
struct Cpu {
    std::mutex lock;
    ggml_backend_t backend = nullptr;
    std::string error;

    Cpu()
    {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void *>(&ggml_backend_load_all), &info) && info.dli_fname) {
            std::string path = info.dli_fname;
            ggml_log_set([](ggml_log_level, const char *, void *) {}, nullptr); // which variant it loaded: not news
            ggml_backend_load_all_from_path(dirname(path.data()));
            ggml_log_set(nullptr, nullptr);
        }
        backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
        if (!backend) {
            error = "ggml has no CPU backend here";
            return;
        }
        if (ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(backend))) {
            if (auto setThreads = reinterpret_cast<ggml_backend_set_n_threads_t>(
                    ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads")))
                setThreads(backend, 1);
            // ggml's reference kernels where it has them (test-backend-ops' CPU side), not its fastest
            using SetUseRef = void (*)(ggml_backend_t, bool);
            if (auto setUseRef =
                    reinterpret_cast<SetUseRef>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_set_use_ref")))
                setUseRef(backend, true);
        }
    }
};

Cpu &cpu()
{
    static Cpu c;
    return c;
}

// ggml's type of a dumped tensor; GGML_TYPE_COUNT when it has none.
ggml_type typeOf(int32_t dtype, const std::string &engineType)
{
    if (!engineType.empty()) {
        for (int t = 0; t < GGML_TYPE_COUNT; ++t)
            if (const char *name = ggml_type_name(ggml_type(t)); name && engineType == name)
                return ggml_type(t);
        return GGML_TYPE_COUNT;
    }
    switch (DType(dtype)) {
    case DType::Float32: return GGML_TYPE_F32;
    case DType::Float16: return GGML_TYPE_F16;
    case DType::BFloat16: return GGML_TYPE_BF16;
    case DType::Int32: return GGML_TYPE_I32;
    case DType::Int64: return GGML_TYPE_I64;
    case DType::Int16: return GGML_TYPE_I16;
    case DType::Int8: return GGML_TYPE_I8;
    default: return GGML_TYPE_COUNT;
    }
}

// The node's op from its name as the probe wrote it (ggml_op_desc: unary and gated ops by
// their own names); false when ggml has no such op.
// sub: the unary or gated op's own number, which its op_params must name.
bool opOf(const std::string &name, ggml_op &op, int32_t &sub)
{
    sub = -1;
    for (int o = 0; o < GGML_OP_COUNT; ++o)
        if (name == ggml_op_name(ggml_op(o))) {
            op = ggml_op(o);
            return true;
        }
    for (int u = 0; u < GGML_UNARY_OP_COUNT; ++u)
        if (name == ggml_unary_op_name(ggml_unary_op(u))) {
            op = GGML_OP_UNARY;
            sub = u;
            return true;
        }
    for (int g = 0; g < GGML_GLU_OP_COUNT; ++g)
        if (name == ggml_glu_op_name(ggml_glu_op(g))) {
            op = GGML_OP_GLU;
            sub = g;
            return true;
        }
    return false;
}

int32_t word(const std::string &raw, int i)
{
    int32_t v;
    std::memcpy(&v, raw.data() + 4 * i, 4);
    return v;
}

// The raw parameters a kernel indexes or switches on, held to what the float64 reference
// checked: ggml aborts the process on values it does not expect, and a dump's files are
// anyone's. Empty when they are sound.
std::string unsoundParams(ggml_op op, int32_t sub, const std::string &raw, const std::vector<CpuReplayInput> &inputs,
                          const std::array<int64_t, 4> &outNe)
{
    // The types a kernel reads its inputs as, whatever the files hold: ids it indexes with,
    // float32 where it has no other path (ggml asserts, or reads the bytes as another type).
    auto typeIs = [&](size_t i, std::initializer_list<ggml_type> types) {
        if (i >= inputs.size())
            return false;
        const ggml_type t = typeOf(inputs[i].dtype, inputs[i].engineType);
        return std::find(types.begin(), types.end(), t) != types.end();
    };
    const bool typed = [&] {
        switch (op) {
        case GGML_OP_MUL_MAT_ID: return inputs.size() == 3 && typeIs(1, {GGML_TYPE_F32}) && typeIs(2, {GGML_TYPE_I32});
        case GGML_OP_ADD_ID:
            return inputs.size() == 3 && typeIs(0, {GGML_TYPE_F32}) && typeIs(1, {GGML_TYPE_F32}) &&
                typeIs(2, {GGML_TYPE_I32});
        case GGML_OP_GET_ROWS: return inputs.size() == 2 && typeIs(1, {GGML_TYPE_I32});
        case GGML_OP_ARGSORT:
        case GGML_OP_SUM_ROWS:
        case GGML_OP_CLAMP: return typeIs(0, {GGML_TYPE_F32});
        case GGML_OP_GLU:
            return sub != GGML_GLU_OP_SWIGLU_OAI ||
                (typeIs(0, {GGML_TYPE_F32}) && (inputs.size() < 2 || typeIs(1, {GGML_TYPE_F32})));
        case GGML_OP_SOFT_MAX:
            return typeIs(0, {GGML_TYPE_F32}) && (inputs.size() < 2 || typeIs(1, {GGML_TYPE_F32, GGML_TYPE_F16})) &&
                (inputs.size() < 3 || typeIs(2, {GGML_TYPE_F32}));
        case GGML_OP_FLASH_ATTN_EXT:
            return typeIs(0, {GGML_TYPE_F32}) && (inputs.size() < 4 || typeIs(3, {GGML_TYPE_F16})) &&
                (inputs.size() < 5 || typeIs(4, {GGML_TYPE_F32})) && (word(raw, 3) == 0 || word(raw, 3) == 10);
        case GGML_OP_CONCAT:
            return inputs.size() == 2 &&
                typeOf(inputs[0].dtype, inputs[0].engineType) == typeOf(inputs[1].dtype, inputs[1].engineType);
        default: return true;
        }
    }();
    if (!typed)
        return "its inputs' types or raw parameters are not ones ggml's CPU kernel for it reads";
    if (op == GGML_OP_ARGSORT && word(raw, 0) != 0 && word(raw, 0) != 1)
        return "its raw ARGSORT order is neither ascending nor descending";
    if (op == GGML_OP_CONCAT) { // the kernel reads the second input past the first along this dimension
        const int32_t dim = word(raw, 0);
        bool sound = inputs.size() == 2 && dim >= 0 && dim < 4;
        for (int d = 0; d < 4 && sound; ++d)
            sound = d == dim
                ? inputs[0].ne[size_t(d)] + inputs[1].ne[size_t(d)] == outNe[size_t(d)]
                : inputs[0].ne[size_t(d)] == outNe[size_t(d)] && inputs[1].ne[size_t(d)] == outNe[size_t(d)];
        if (!sound)
            return "its raw CONCAT dimension is not the one its op_param.json states";
    }
    if ((op == GGML_OP_UNARY || op == GGML_OP_GLU) && word(raw, 0) != sub)
        return "its raw op parameters name another op than its name";
    if (op == GGML_OP_ROPE) {
        const int32_t nDims = word(raw, 1), mode = word(raw, 2);
        if (inputs.empty() || nDims <= 0 || nDims % 2 || nDims > inputs[0].ne[0] || (mode != 0 && mode != 2))
            return "its raw ROPE parameters are not the ones its op_param.json states";
    }
    return {};
}

} // namespace

std::optional<std::vector<double>> ggmlCpuReplay(const std::string &opName, const std::string &rawParams,
                                                 const std::vector<CpuReplayInput> &inputs,
                                                 const std::array<int64_t, 4> &outNe, int32_t outDtype,
                                                 std::string &why)
{
    static const std::set<std::string> writers{"SET_ROWS", "CPY",     "SET",       "ACC", "VIEW",
                                               "RESHAPE",  "PERMUTE", "TRANSPOSE", "NONE"};
    if (writers.count(opName)) {
        why = opName + " writes into another tensor's memory or runs no kernel";
        return std::nullopt;
    }
    ggml_op op{};
    int32_t sub = -1;
    if (!opOf(opName, op, sub)) {
        why = "ggml has no op " + opName;
        return std::nullopt;
    }
    if (rawParams.size() != GGML_MAX_OP_PARAMS) {
        why = "its raw op parameters were not dumped (-tiling)";
        return std::nullopt;
    }
    if (const std::string unsound = unsoundParams(op, sub, rawParams, inputs, outNe); !unsound.empty()) {
        why = unsound;
        return std::nullopt;
    }
    if (inputs.size() > GGML_MAX_SRC) {
        why = "more inputs than ggml takes";
        return std::nullopt;
    }
    const ggml_type outType = typeOf(outDtype, {});
    if (outType != GGML_TYPE_F32 && outType != GGML_TYPE_F16 && outType != GGML_TYPE_BF16) {
        why = "an output that is not float32, float16 or bfloat16";
        return std::nullopt;
    }
    // The payloads first, outside the lock.
    std::vector<Tensor> payloads;
    for (const auto &in : inputs) {
        if (in.stored) {
            Tensor &t = payloads.emplace_back();
            t.data.assign(in.stored->begin(), in.stored->end());
            continue;
        }
        if (!in.values) {
            payloads.push_back(readBin(in.path));
            continue;
        }
        Tensor &t = payloads.emplace_back();
        t.data.resize(in.values->size() * sizeof(float));
        std::memcpy(t.data.data(), in.values->data(), t.data.size());
    }
    Cpu &c = cpu();
    std::lock_guard hold(c.lock);
    if (!c.backend) {
        why = c.error;
        return std::nullopt;
    }
    ggml_init_params params{(inputs.size() + 2) * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *ctx = ggml_init(params);
    if (!ctx) {
        why = "ggml could not make a context";
        return std::nullopt;
    }
    std::vector<ggml_tensor *> src;
    for (const auto &in : inputs) {
        const ggml_type t = typeOf(in.dtype, in.engineType);
        if (t == GGML_TYPE_COUNT) {
            ggml_free(ctx);
            why = "an input of a type ggml cannot take (" + dtypeName(in.dtype) + ")";
            return std::nullopt;
        }
        src.push_back(ggml_new_tensor(ctx, t, 4, in.ne.data()));
    }
    ggml_tensor *node = ggml_new_tensor(ctx, outType, 4, outNe.data());
    node->op = op;
    std::memcpy(node->op_params, rawParams.data(), GGML_MAX_OP_PARAMS);
    for (size_t i = 0; i < src.size(); ++i)
        node->src[i] = src[i];
    std::optional<std::vector<double>> out;
    if (!ggml_backend_supports_op(c.backend, node)) {
        why = "ggml's CPU backend does not run this use of " + opName;
    } else if (ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, c.backend); !buf) {
        why = "ggml could not allocate the op's tensors";
    } else {
        bool sized = true;
        for (size_t i = 0; i < src.size(); ++i) {
            if (payloads[i].data.size() != ggml_nbytes(src[i])) {
                sized = false;
                why = inputs[i].path + ": its bytes are not what its type and dims take";
                break;
            }
            ggml_backend_tensor_set(src[i], payloads[i].data.data(), 0, payloads[i].data.size());
        }
        ggml_cgraph *gf = sized ? ggml_new_graph(ctx) : nullptr;
        if (gf) {
            ggml_build_forward_expand(gf, node);
            if (ggml_backend_graph_compute(c.backend, gf) != GGML_STATUS_SUCCESS) {
                why = "ggml's CPU backend could not compute it";
            } else {
                std::vector<uint8_t> bytes(ggml_nbytes(node));
                ggml_backend_tensor_get(node, bytes.data(), 0, bytes.size());
                const int64_t n = ggml_nelements(node);
                std::vector<float> f(static_cast<size_t>(n));
                if (outType == GGML_TYPE_F32)
                    std::memcpy(f.data(), bytes.data(), bytes.size());
                else
                    ggml_get_type_traits(outType)->to_float(bytes.data(), f.data(), n);
                out.emplace(f.begin(), f.end());
            }
        }
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    return out;
}

} // namespace llmscope::opcheck
