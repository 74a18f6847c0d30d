#include "core/torch/pth_file.h"

#include <zip.h>

#include <memory>
#include <cstring>
#include <optional>

#include "core/tensor/dtype.h"
#include "core/torch/restricted_pickle.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace llmscope {
namespace {

constexpr zip_uint64_t kMaxPickle = 16u << 20; // a tensor's pickle is a few hundred bytes
constexpr uint64_t kMaxTensorBytes = uint64_t(16) << 30; // one file's tensor, gathered (16 GiB)

struct ZipCloser {
    void operator()(zip_t *z) const { zip_discard(z); }
};
using Zip = std::unique_ptr<zip_t, ZipCloser>;

// The entry's bytes, at most limit of them; nullopt when there is no such entry.
std::optional<std::string> readEntry(zip_t *z, const std::string &name, zip_uint64_t limit, const std::string &path)
{
    const zip_int64_t index = zip_name_locate(z, name.c_str(), 0);
    if (index < 0)
        return std::nullopt;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, zip_uint64_t(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        throw Error("'" + path + "': its entry " + name + " does not read");
    if (st.size > limit)
        throw Error("'" + path + "': its entry " + name + " holds " + std::to_string(st.size) +
                    " bytes, more than a saved tensor's (" + std::to_string(limit) + ")");
    std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> f(zip_fopen_index(z, zip_uint64_t(index), 0), zip_fclose);
    if (!f)
        throw Error("'" + path + "': its entry " + name + " does not open: " + zip_strerror(z));
    std::string bytes(size_t(st.size), '\0');
    zip_uint64_t done = 0;
    while (done < st.size) {
        const zip_int64_t n = zip_fread(f.get(), bytes.data() + done, st.size - done);
        if (n <= 0)
            throw Error("'" + path + "': its entry " + name + " is cut short");
        done += zip_uint64_t(n);
    }
    return bytes;
}

std::optional<int32_t> dtypeOfStorage(const std::string &type)
{
    static const std::pair<const char *, DType> types[] = {
        {"FloatStorage", DType::Float32},     {"DoubleStorage", DType::Double}, {"HalfStorage", DType::Float16},
        {"BFloat16Storage", DType::BFloat16}, {"LongStorage", DType::Int64},    {"IntStorage", DType::Int32},
        {"ShortStorage", DType::Int16},       {"CharStorage", DType::Int8},     {"ByteStorage", DType::UInt8},
        {"BoolStorage", DType::Bool}};
    for (const auto &[name, dtype] : types)
        if (type == name)
            return int32_t(dtype);
    return std::nullopt;
}

// The one folder data.pkl lies in (torch names it after the file it saved to).
std::string archivePrefix(zip_t *z, const std::string &path)
{
    std::string prefix;
    const zip_int64_t n = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char *name = zip_get_name(z, zip_uint64_t(i), 0);
        const std::string s = name ? name : "";
        if (s == "data.pkl" || (s.size() > 9 && s.compare(s.size() - 9, 9, "/data.pkl") == 0)) {
            if (!prefix.empty() || s.find('/') != s.rfind('/'))
                throw Error("'" + path + "': more than one data.pkl, or one nested deeper than torch.save puts it");
            prefix = s.substr(0, s.size() - 8);
            if (prefix.empty())
                prefix = "/"; // data.pkl at the top: marked, emptied below
        }
    }
    if (prefix.empty())
        throw Error("'" + path + "': a zip archive without data.pkl: not a torch.save file");
    return prefix == "/" ? std::string() : prefix;
}

} // namespace

bool isTorchFile(const std::string &path)
{
    const std::string lower = toLower(path);
    auto endsWith = [&](const char *e) {
        const size_t n = std::strlen(e);
        return lower.size() > n && lower.compare(lower.size() - n, n, e) == 0;
    };
    return endsWith(".pth") || endsWith(".pt");
}

Tensor readPth(const std::string &path, bool withData)
{
    int err = 0;
    Zip z(zip_open(path.c_str(), ZIP_RDONLY, &err));
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, err);
        const std::string why = zip_error_strerror(&e);
        zip_error_fini(&e);
        throw Error("'" + path + "': not a torch.save zip archive (" + why +
                    "; files from torch's legacy format before 1.6 are not read)");
    }
    const std::string prefix = archivePrefix(z.get(), path);
    if (const auto order = readEntry(z.get(), prefix + "byteorder", 16, path); order && *order != "little")
        throw Error("'" + path + "': saved big-endian; only little-endian files are read");
    const std::string pickle = *readEntry(z.get(), prefix + "data.pkl", kMaxPickle, path);
    const torchfile::TensorRef ref = torchfile::readTensorPickle(pickle, path);
    const auto dtype = dtypeOfStorage(ref.storageType);
    if (!dtype)
        throw Error("'" + path + "': a " + ref.storageType + " (its element type is not read)");
    const uint64_t esize = *dtypeBytes(*dtype, 1);
    Tensor t;
    t.dtype = *dtype;
    t.dims = ref.size;
    const uint64_t count = elementCount(t.dims); // throws on overflow
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, esize, &bytes) || bytes > kMaxTensorBytes)
        throw Error("'" + path + "': " + std::to_string(count) + " elements, more than llmscope reads from one file");
    // The furthest element the view reaches, within the storage the pickle declares: every
    // step checked, so that no sum wraps around.
    const uint64_t storageElements = uint64_t(ref.storageElements);
    uint64_t last = uint64_t(ref.offset);
    for (size_t d = 0; d < ref.size.size() && count; ++d) {
        uint64_t step = 0;
        if (__builtin_mul_overflow(uint64_t(ref.size[d] - 1), uint64_t(ref.stride[d]), &step) ||
            __builtin_add_overflow(last, step, &last))
            throw Error("'" + path + "': a stride beyond any storage");
    }
    if (count && last >= storageElements)
        throw Error("'" + path + "': the tensor reaches element " + std::to_string(last) + " of a storage of " +
                    std::to_string(storageElements));
    if (!withData)
        return t;
    if (storageElements > (uint64_t(1) << 40) / esize)
        throw Error("'" + path + "': a storage of " + std::to_string(storageElements) + " elements");
    const auto storage = readEntry(z.get(), prefix + "data/" + ref.storageKey, storageElements * esize, path);
    if (!storage || storage->size() < storageElements * esize)
        throw Error("'" + path + "': its storage data/" + ref.storageKey + " is missing or shorter than the " +
                    std::to_string(storageElements) + " elements it declares");
    t.hasData = true;
    try {
        t.data.resize(size_t(bytes));
    } catch (const std::bad_alloc &) {
        throw Error("'" + path + "': " + std::to_string(bytes) + " bytes do not fit in memory");
    }
    // Gathered in torch's order, the last dim fastest.
    std::vector<int64_t> at(ref.size.size(), 0);
    for (uint64_t k = 0; k < count; ++k) {
        uint64_t src = uint64_t(ref.offset);
        for (size_t d = 0; d < at.size(); ++d)
            src += uint64_t(at[d]) * uint64_t(ref.stride[d]);
        std::memcpy(t.data.data() + k * esize, storage->data() + src * esize, size_t(esize));
        for (size_t d = at.size(); d-- > 0;) {
            if (++at[d] < ref.size[d])
                break;
            at[d] = 0;
        }
    }
    return t;
}

} // namespace llmscope
