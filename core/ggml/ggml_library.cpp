#include "core/ggml/ggml_library.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <dlfcn.h>
#include <sys/stat.h>

#include "core/util/error.h"
#include "core/util/program_files.h"

#ifndef LLMSCOPE_GGML_BASE
#define LLMSCOPE_GGML_BASE ""
#define LLMSCOPE_GGML_TYPES 0
#endif

namespace llmscope::ggml {
namespace {

// ggml.h's struct ggml_type_traits, checked field by field against ggml's own getters at load.
struct TypeTraits {
    const char *typeName;
    int64_t blckSize;
    int64_t blckSizeInterleave;
    size_t typeSize;
    bool isQuantized;
    void (*toFloat)(const void *, float *, int64_t);
    void (*fromFloatRef)(const float *, void *, int64_t);
};

struct GgufInitParams {
    bool noAlloc;
    void **ctx;
};

constexpr int kMaxDims = 4; // GGML_MAX_DIMS, fixed since GGUF v1

} // namespace

struct Library::Api {
    void *handle = nullptr;
    const char *(*typeName)(int) = nullptr;
    int64_t (*blckSize)(int) = nullptr;
    size_t (*typeSize)(int) = nullptr;
    bool (*isQuantized)(int) = nullptr;
    const TypeTraits *(*traits)(int) = nullptr;
    void (*quantizeInit)(int) = nullptr; // optional
    void *(*ggufInit)(const char *, GgufInitParams) = nullptr;
    void (*ggufFree)(void *) = nullptr;
    size_t (*dataOffset)(const void *) = nullptr;
    int64_t (*nTensors)(const void *) = nullptr;
    const char *(*tensorName)(const void *, int64_t) = nullptr;
    size_t (*tensorOffset)(const void *, int64_t) = nullptr;
    int (*tensorType)(const void *, int64_t) = nullptr;
    size_t (*tensorSize)(const void *, int64_t) = nullptr;
    const int64_t *(*tensorNe)(const void *, int64_t) = nullptr;
    // optional: the model's metadata (general.architecture)
    int64_t (*findKey)(const void *, const char *) = nullptr;
    int (*kvType)(const void *, int64_t) = nullptr;
    const char *(*valStr)(const void *, int64_t) = nullptr;

    mutable std::mutex mutex; // the model cache
    struct Cached {
        int64_t size, mtime, mtimeNs;
        std::shared_ptr<const ModelFile> file;
    };
    mutable std::map<std::string, Cached> models;
};

uint64_t BlockType::bytes(uint64_t elements) const
{
    if (elements % uint64_t(blockSize))
        throw Error(std::to_string(elements) + " elements are not a whole number of " + name + " blocks of " +
                    std::to_string(blockSize));
    uint64_t out = 0;
    if (__builtin_mul_overflow(elements / uint64_t(blockSize), blockBytes, &out))
        throw Error(std::to_string(elements) + " " + name + " elements are more than any file holds");
    return out;
}

uint64_t ModelTensor::elements() const
{
    uint64_t n = 1;
    for (int64_t d : dims)
        n *= uint64_t(d);
    return n;
}

const ModelTensor *ModelFile::find(const std::string &name) const
{
    const auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
}

const Library &Library::get()
{
    static std::unique_ptr<Library> lib;
    static std::string failure;
    static std::once_flag once;
    std::call_once(once, [] {
        try {
            lib.reset(new Library());
        } catch (const Error &e) {
            failure = e.what();
        }
    });
    if (!lib)
        throw Error(failure);
    return *lib;
}

Library::Library() : m_api(std::make_unique<Api>())
{
    const char *env = std::getenv("LLMSCOPE_GGML_LIBRARY");
    // an installed package carries the ggml it was built with beside the program
    m_path = env && *env                            ? env
        : installedBesideProgram("libggml-base.so") ? besideProgram("libggml-base.so")
                                                    : LLMSCOPE_GGML_BASE;
    if (m_path.empty())
        throw Error("ggml's number formats are needed (quantized tensors, model files) but this llmscope was built "
                    "without llama.cpp: set LLMSCOPE_GGML_LIBRARY to a libggml-base.so");
    Api &a = *m_api;
    a.handle = ::dlopen(m_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!a.handle) {
        const char *why = ::dlerror();
        throw Error("cannot load ggml from '" + m_path + "' (" + (why ? why : "unknown error") +
                    "): run scripts/setup, or set LLMSCOPE_GGML_LIBRARY to a libggml-base.so");
    }
    auto bind = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(a.handle, name));
        if (!fn)
            throw Error("'" + m_path + "' is not a ggml library llmscope knows: it has no " + name);
    };
    bind(a.typeName, "ggml_type_name");
    bind(a.blckSize, "ggml_blck_size");
    bind(a.typeSize, "ggml_type_size");
    bind(a.isQuantized, "ggml_is_quantized");
    bind(a.traits, "ggml_get_type_traits");
    bind(a.ggufInit, "gguf_init_from_file");
    bind(a.ggufFree, "gguf_free");
    bind(a.dataOffset, "gguf_get_data_offset");
    bind(a.nTensors, "gguf_get_n_tensors");
    bind(a.tensorName, "gguf_get_tensor_name");
    bind(a.tensorOffset, "gguf_get_tensor_offset");
    bind(a.tensorType, "gguf_get_tensor_type");
    bind(a.tensorSize, "gguf_get_tensor_size");
    bind(a.tensorNe, "gguf_get_tensor_ne");
    a.quantizeInit = reinterpret_cast<decltype(a.quantizeInit)>(::dlsym(a.handle, "ggml_quantize_init"));
    a.findKey = reinterpret_cast<decltype(a.findKey)>(::dlsym(a.handle, "gguf_find_key"));
    a.kvType = reinterpret_cast<decltype(a.kvType)>(::dlsym(a.handle, "gguf_get_kv_type"));
    a.valStr = reinterpret_cast<decltype(a.valStr)>(::dlsym(a.handle, "gguf_get_val_str"));
    // The types of the ggml llmscope was built with (ggml only ever adds types; a release build
    // of ggml_type_name does not check its argument), up to where an older library says NONE.
    // Removed ones have no block size.
    for (int t = 0; t < LLMSCOPE_GGML_TYPES; ++t) {
        const char *name = a.typeName(t);
        if (!name || std::strcmp(name, "NONE") == 0)
            break;
        const int64_t blck = a.blckSize(t);
        if (blck <= 0)
            continue;
        const TypeTraits *tr = a.traits(t);
        if (!tr || !tr->typeName || std::strcmp(tr->typeName, name) != 0 || tr->blckSize != blck ||
            tr->typeSize != a.typeSize(t) || tr->isQuantized != a.isQuantized(t))
            throw Error("'" + m_path + "' is a ggml whose type table llmscope does not understand (type " +
                        std::to_string(t) + ")");
        BlockType b;
        b.name = name;
        b.id = t;
        b.blockSize = blck;
        b.blockBytes = tr->typeSize;
        b.quantized = tr->isQuantized;
        b.toFloat = tr->toFloat;
        b.fromFloat = tr->fromFloatRef;
        if (!b.toFloat && b.name != "f32")
            continue; // integer types: nothing to dequantize
        m_types.emplace(b.name, b);
    }
    if (!m_types.count("f32") || !m_types.count("q8_0"))
        throw Error("'" + m_path + "' does not look like ggml: it has no f32 or q8_0 type");
}

Library::~Library()
{
    if (m_api && m_api->handle)
        ::dlclose(m_api->handle);
}

const BlockType *Library::type(const std::string &name) const
{
    const auto it = m_types.find(name);
    if (it != m_types.end())
        return &it->second;
    auto lower = [](std::string v) {
        for (char &c : v)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return v;
    };
    for (const auto &[n, b] : m_types)
        if (lower(n) == lower(name))
            return &b;
    return nullptr;
}

void Library::prepare(const BlockType &type) const
{
    if (m_api->quantizeInit && type.quantized)
        m_api->quantizeInit(type.id); // once per type inside ggml, under its own lock
}

std::shared_ptr<const ModelFile> Library::model(const std::string &path) const
{
    const Api &a = *m_api;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw Error("the model file '" + path + "' is not there (moved since the dump?)");
    std::lock_guard lock(a.mutex);
    auto cached = a.models.find(path);
    if (cached != a.models.end() && cached->second.size == st.st_size && cached->second.mtime == st.st_mtim.tv_sec &&
        cached->second.mtimeNs == st.st_mtim.tv_nsec)
        return cached->second.file;
    void *ctx = a.ggufInit(path.c_str(), GgufInitParams{true, nullptr});
    if (!ctx)
        throw Error("'" + path + "' is not a GGUF model file ggml can read");
    auto file = std::make_shared<ModelFile>();
    file->path = path;
    try {
        constexpr int kGgufString = 8; // GGUF_TYPE_STRING, fixed by the file format
        if (a.findKey && a.kvType && a.valStr)
            if (const int64_t k = a.findKey(ctx, "general.architecture"); k >= 0 && a.kvType(ctx, k) == kGgufString)
                if (const char *arch = a.valStr(ctx, k))
                    file->architecture = arch;
        const uint64_t base = a.dataOffset(ctx);
        const int64_t n = a.nTensors(ctx);
        for (int64_t i = 0; i < n; ++i) {
            ModelTensor t;
            const char *name = a.tensorName(ctx, i);
            t.name = name ? name : "";
            const int type = a.tensorType(ctx, i);
            const char *typeName = type >= 0 && type < LLMSCOPE_GGML_TYPES ? a.typeName(type) : nullptr;
            t.typeName = typeName ? typeName : "type " + std::to_string(type);
            t.type = this->type(t.typeName);
            t.offset = base + a.tensorOffset(ctx, i);
            t.bytes = a.tensorSize(ctx, i);
            const int64_t *ne = a.tensorNe(ctx, i);
            int nd = kMaxDims;
            while (nd > 1 && ne[nd - 1] == 1)
                --nd;
            for (int d = nd - 1; d >= 0; --d)
                t.dims.push_back(ne[d]);
            if (t.offset > uint64_t(st.st_size) || t.bytes > uint64_t(st.st_size) - t.offset)
                throw Error("'" + path + "': tensor " + t.name + " lies past the end of the file (truncated?)");
            file->tensors.emplace(t.name, std::move(t));
        }
    } catch (...) {
        a.ggufFree(ctx);
        throw;
    }
    a.ggufFree(ctx);
    a.models[path] = Api::Cached{st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, file};
    return file;
}

} // namespace llmscope::ggml
