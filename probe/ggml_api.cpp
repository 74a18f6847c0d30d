#include "probe/ggml_api.h"

#include <link.h>
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

namespace llmscope::probe {
namespace {

struct Search {
    const char *symbol;
    void *self;
    void *found;
    void *handle;
};

int visit(dl_phdr_info *info, size_t, void *data)
{
    auto *s = static_cast<Search *>(data);
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *sym = dlsym(h, s->symbol);
    if (sym && sym != s->self) {
        s->found = sym;
        s->handle = h;
        return 1; // keep the handle: the object stays loaded while the host uses it
    }
    dlclose(h);
    return 0;
}

template <typename F>
void bind(F &fn, void *handle, const char *name)
{
    fn = reinterpret_cast<F>(handle ? dlsym(handle, name) : dlsym(RTLD_NEXT, name));
}

} // namespace

void *findRealSymbol(const char *name)
{
    if (void *next = dlsym(RTLD_NEXT, name))
        return next;
    Search s{name, dlsym(RTLD_DEFAULT, name), nullptr, nullptr};
    dl_iterate_phdr(visit, &s);
    return s.found;
}

namespace {
// Where to look up the functions beside symbol: RTLD_DEFAULT (null) where the host loaded ggml
// globally, else the loaded object that defines it. False when none does.
bool objectDefining(const char *symbol, void **handle)
{
    *handle = RTLD_DEFAULT;
    if (dlsym(RTLD_DEFAULT, symbol))
        return true;
    Search s{symbol, nullptr, nullptr, nullptr};
    dl_iterate_phdr(visit, &s);
    *handle = s.handle;
    return s.handle != nullptr;
}

template <typename F>
void bindIn(F &fn, void *handle, const char *name)
{
    fn = reinterpret_cast<F>(dlsym(handle, name));
}

struct Registry {
    size_t (*count)() = nullptr;
    ggml_backend_dev_t (*get)(size_t) = nullptr;
    const char *(*name)(ggml_backend_dev_t) = nullptr;
    const char *(*description)(ggml_backend_dev_t) = nullptr;
    void (*memory)(ggml_backend_dev_t, size_t *, size_t *) = nullptr;
    enum ggml_backend_dev_type (*type)(ggml_backend_dev_t) = nullptr;
    ggml_backend_reg_t (*regByName)(const char *) = nullptr;
};

const Registry &registry()
{
    static Registry r;
    static std::once_flag once;
    std::call_once(once, [] {
        void *h = nullptr;
        if (!objectDefining("ggml_backend_dev_count", &h))
            return;
        bindIn(r.count, h, "ggml_backend_dev_count");
        bindIn(r.get, h, "ggml_backend_dev_get");
        bindIn(r.name, h, "ggml_backend_dev_name");
        bindIn(r.description, h, "ggml_backend_dev_description");
        bindIn(r.memory, h, "ggml_backend_dev_memory");
        bindIn(r.type, h, "ggml_backend_dev_type");
        bindIn(r.regByName, h, "ggml_backend_reg_by_name");
    });
    return r;
}
} // namespace

std::vector<BackendDevice> backendDevices()
{
    const Registry &r = registry();
    std::vector<BackendDevice> out;
    if (!r.count || !r.get || !r.name)
        return out;
    for (size_t i = 0, n = r.count(); i < n && i < 64; ++i) {
        ggml_backend_dev_t dev = r.get(i);
        if (!dev)
            continue;
        BackendDevice d;
        const char *name = r.name(dev);
        d.name = name ? name : "";
        if (r.description)
            if (const char *desc = r.description(dev))
                d.description = desc;
        if (r.type)
            switch (r.type(dev)) {
            case GGML_BACKEND_DEVICE_TYPE_CPU: d.type = "CPU"; break;
            case GGML_BACKEND_DEVICE_TYPE_GPU: d.type = "GPU"; break;
            case GGML_BACKEND_DEVICE_TYPE_IGPU: d.type = "IGPU"; break;
            case GGML_BACKEND_DEVICE_TYPE_ACCEL: d.type = "ACCEL"; break;
            default: d.type = "other"; break;
            }
        if (r.memory) {
            size_t free = 0, total = 0;
            r.memory(dev, &free, &total);
            d.memory = total;
        }
        out.push_back(std::move(d));
    }
    return out;
}

std::string ggmlVersion()
{
    const GgmlApi &api = ggml();
    const char *v = api.version ? api.version() : nullptr;
    const char *c = api.commit ? api.commit() : nullptr;
    if (!v || !*v)
        return {};
    return std::string(v) + (c && *c ? std::string(", commit ") + c : std::string());
}

std::vector<std::string> cpuFeatures()
{
    const Registry &r = registry();
    const GgmlApi &api = ggml();
    std::vector<std::string> out;
    if (!r.regByName || !api.regGetProcAddress)
        return out;
    ggml_backend_reg_t cpu = r.regByName("CPU");
    if (!cpu)
        return out;
    const auto get =
        reinterpret_cast<ggml_backend_get_features_t>(api.regGetProcAddress(cpu, "ggml_backend_get_features"));
    const ggml_backend_feature *f = get ? get(cpu) : nullptr;
    for (int i = 0; f && f[i].name && i < 256; ++i)
        out.push_back(std::string(f[i].name) + "=" + (f[i].value ? f[i].value : ""));
    return out;
}

bool GgmlApi::complete() const
{
    return setEvalCallback && graphComputeAsync && getName && opDesc && typeName && nelements && nbytes &&
        isContiguous && tensorGet && graphNNodes && graphNode;
}

ggml_backend_t GgmlApi::soleBackend(ggml_backend_sched_t sched) const
{
    return schedNBackends && schedBackend && schedNBackends(sched) == 1 ? schedBackend(sched, 0) : nullptr;
}

const char *GgmlApi::nodeBackendName(ggml_backend_sched_t sched, const ggml_tensor *t) const
{
    ggml_backend_t b = schedTensorBackend ? schedTensorBackend(sched, const_cast<ggml_tensor *>(t)) : nullptr;
    return b && backendName ? backendName(b) : nullptr;
}

const GgmlApi &ggml()
{
    static GgmlApi api;
    static std::once_flag once;
    std::call_once(once, [] {
        void *self = dlsym(RTLD_DEFAULT, "ggml_backend_sched_set_eval_callback");
        void *handle = nullptr;
        if (!dlsym(RTLD_NEXT, "ggml_backend_sched_set_eval_callback")) {
            Search s{"ggml_backend_sched_set_eval_callback", self, nullptr, nullptr};
            dl_iterate_phdr(visit, &s);
            handle = s.handle;
            if (!handle)
                return;
        }
        bind(api.setEvalCallback, handle, "ggml_backend_sched_set_eval_callback");
        bind(api.graphComputeAsync, handle, "ggml_backend_sched_graph_compute_async");
        // The helpers live in libggml-base, which the scheduler's object depends on.
        void *base = handle ? handle : RTLD_DEFAULT;
        api.getName = reinterpret_cast<decltype(api.getName)>(dlsym(base, "ggml_get_name"));
        api.opDesc = reinterpret_cast<decltype(api.opDesc)>(dlsym(base, "ggml_op_desc"));
        api.typeName = reinterpret_cast<decltype(api.typeName)>(dlsym(base, "ggml_type_name"));
        api.nelements = reinterpret_cast<decltype(api.nelements)>(dlsym(base, "ggml_nelements"));
        api.nbytes = reinterpret_cast<decltype(api.nbytes)>(dlsym(base, "ggml_nbytes"));
        api.isContiguous = reinterpret_cast<decltype(api.isContiguous)>(dlsym(base, "ggml_is_contiguous"));
        api.tensorGet = reinterpret_cast<decltype(api.tensorGet)>(dlsym(base, "ggml_backend_tensor_get"));
        api.tensorSet = reinterpret_cast<decltype(api.tensorSet)>(dlsym(base, "ggml_backend_tensor_set"));
        api.graphNNodes = reinterpret_cast<decltype(api.graphNNodes)>(dlsym(base, "ggml_graph_n_nodes"));
        api.graphNode = reinterpret_cast<decltype(api.graphNode)>(dlsym(base, "ggml_graph_node"));
        api.bufferUsage = reinterpret_cast<decltype(api.bufferUsage)>(dlsym(base, "ggml_backend_buffer_get_usage"));
        api.schedNBackends =
            reinterpret_cast<decltype(api.schedNBackends)>(dlsym(base, "ggml_backend_sched_get_n_backends"));
        api.schedBackend = reinterpret_cast<decltype(api.schedBackend)>(dlsym(base, "ggml_backend_sched_get_backend"));
        bind(api.schedFree, handle, "ggml_backend_sched_free");
        bind(api.regGetProcAddress, handle, "ggml_backend_reg_get_proc_address");
        bind(api.schedAllocGraph, handle, "ggml_backend_sched_alloc_graph");
        api.bufferIsHost = reinterpret_cast<decltype(api.bufferIsHost)>(dlsym(base, "ggml_backend_buffer_is_host"));
        api.bufferIsMulti =
            reinterpret_cast<decltype(api.bufferIsMulti)>(dlsym(base, "ggml_backend_buffer_is_multi_buffer"));
        api.bufferAlignment =
            reinterpret_cast<decltype(api.bufferAlignment)>(dlsym(base, "ggml_backend_buffer_get_alignment"));
        api.version = reinterpret_cast<decltype(api.version)>(dlsym(base, "ggml_version"));
        api.commit = reinterpret_cast<decltype(api.commit)>(dlsym(base, "ggml_commit"));
        api.backendName = reinterpret_cast<decltype(api.backendName)>(dlsym(base, "ggml_backend_name"));
        api.schedTensorBackend =
            reinterpret_cast<decltype(api.schedTensorBackend)>(dlsym(base, "ggml_backend_sched_get_tensor_backend"));
        api.schedReserve = reinterpret_cast<decltype(api.schedReserve)>(dlsym(base, "ggml_backend_sched_reserve"));
        bind(api.schedSynchronize, handle, "ggml_backend_sched_synchronize");
        api.schedReset = reinterpret_cast<decltype(api.schedReset)>(dlsym(base, "ggml_backend_sched_reset"));
        api.schedSetTensorBackend =
            reinterpret_cast<decltype(api.schedSetTensorBackend)>(dlsym(base, "ggml_backend_sched_set_tensor_backend"));
        api.graphNodes = reinterpret_cast<decltype(api.graphNodes)>(dlsym(base, "ggml_graph_nodes"));
        api.typeTraits = reinterpret_cast<decltype(api.typeTraits)>(dlsym(base, "ggml_get_type_traits"));
        api.tensorGetAsync =
            reinterpret_cast<decltype(api.tensorGetAsync)>(dlsym(base, "ggml_backend_tensor_get_async"));
        api.backendSynchronize =
            reinterpret_cast<decltype(api.backendSynchronize)>(dlsym(base, "ggml_backend_synchronize"));
        api.backendDefaultBuft =
            reinterpret_cast<decltype(api.backendDefaultBuft)>(dlsym(base, "ggml_backend_get_default_buffer_type"));
        api.bufferBuft = reinterpret_cast<decltype(api.bufferBuft)>(dlsym(base, "ggml_backend_buffer_get_type"));
        api.paramsDefault =
            reinterpret_cast<decltype(api.paramsDefault)>(dlsym(base, "ggml_threadpool_params_default"));
    });
    return api;
}

const GgmlCpuApi &ggmlCpu()
{
    static GgmlCpuApi api;
    static std::once_flag once;
    std::call_once(once, [] {
        Search s{"ggml_backend_cpu_set_threadpool", nullptr, nullptr, nullptr};
        dl_iterate_phdr(visit, &s);
        if (!s.handle)
            return;
        GgmlCpuApi a;
        a.isCpu = reinterpret_cast<decltype(a.isCpu)>(dlsym(s.handle, "ggml_backend_is_cpu"));
        a.setThreadpool = reinterpret_cast<decltype(a.setThreadpool)>(s.found);
        a.threadpoolNew = reinterpret_cast<decltype(a.threadpoolNew)>(dlsym(s.handle, "ggml_threadpool_new"));
        a.threadpoolFree = reinterpret_cast<decltype(a.threadpoolFree)>(dlsym(s.handle, "ggml_threadpool_free"));
        a.paramsDefault = ggml().paramsDefault;
        if (a.complete())
            api = a;
    });
    return api;
}

bool layoutMatches(const ggml_tensor *t)
{
    const GgmlApi &api = ggml();
    int64_t n = 1;
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
        n *= t->ne[d];
    return api.getName(t) == t->name && api.nelements(t) == n;
}

} // namespace llmscope::probe
