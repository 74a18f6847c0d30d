#include "core/tensor/convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/util/simd_clones.h"

namespace llmscope {
namespace {

template <typename T>
T load(const uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

enum class Special { Ieee, FiniteNanOnlyAllOnes, None };

// Generic small float: 1 sign bit, ebits exponent, mbits mantissa, bias 2^(ebits-1)-1.
double decodeMini(unsigned bits, int ebits, int mbits, Special special)
{
    const unsigned sign = (bits >> (ebits + mbits)) & 1u;
    const unsigned e = (bits >> mbits) & ((1u << ebits) - 1);
    const unsigned m = bits & ((1u << mbits) - 1);
    const int bias = (1 << (ebits - 1)) - 1;
    const unsigned emax = (1u << ebits) - 1;
    double v;
    if (special == Special::Ieee && e == emax)
        v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (special == Special::FiniteNanOnlyAllOnes && e == emax && m == (1u << mbits) - 1)
        v = std::numeric_limits<double>::quiet_NaN();
    else if (e == 0)
        v = std::ldexp(static_cast<double>(m) / (1u << mbits), 1 - bias);
    else
        v = std::ldexp(1.0 + static_cast<double>(m) / (1u << mbits), static_cast<int>(e) - bias);
    return sign ? -v : v;
}

unsigned nibble(const uint8_t *data, uint64_t i) // low nibble first
{
    return (data[i / 2] >> ((i % 2) * 4)) & 0xFu;
}

// float16 to float32's bits, exactly, without branches so that a loop of it vectorizes: a
// normal number's exponent and mantissa move into place (Inf and NaN's exponent moved twice as
// far: all ones, their mantissa kept), and a subnormal (or zero) is its mantissa times 2^-24,
// exact in float.
inline uint32_t halfBits(uint16_t h)
{
    const uint32_t magnitude = h & 0x7FFFu;
    const float tiny = float(magnitude) * 0x1p-24f;
    uint32_t tinyBits;
    std::memcpy(&tinyBits, &tiny, 4);
    // masks, not branches: the vectorizer takes no condition here
    const uint32_t special = 0u - uint32_t(magnitude >= 0x7C00u), subnormal = 0u - uint32_t(magnitude < 0x400u);
    const uint32_t normal = (magnitude << 13) + (112u << 23) + (special & (112u << 23));
    return ((normal & ~subnormal) | (tinyBits & subnormal)) | uint32_t(h & 0x8000u) << 16;
}

LLMSCOPE_CLONES
void widenHalves(const uint8_t *__restrict d, uint64_t count, float *__restrict out)
{
    for (uint64_t i = 0; i < count; ++i) {
        const uint32_t bits = halfBits(load<uint16_t>(d + 2 * i));
        std::memcpy(&out[i], &bits, 4);
    }
}

LLMSCOPE_CLONES
void widenBf16(const uint8_t *__restrict d, uint64_t count, float *__restrict out)
{
    for (uint64_t i = 0; i < count; ++i) {
        const uint32_t bits = uint32_t(load<uint16_t>(d + 2 * i)) << 16;
        std::memcpy(&out[i], &bits, 4);
    }
}

// Integers of up to 16 bits are exact in float.
template <typename T>
LLMSCOPE_CLONES void widenIntegers(const uint8_t *__restrict d, uint64_t count, float *__restrict out)
{
    for (uint64_t i = 0; i < count; ++i)
        out[i] = float(load<T>(d + sizeof(T) * i));
}

} // namespace

// Exact, by bits: the stats and compare paths convert millions of halves.
float halfToFloat(uint16_t h)
{
    const uint32_t bits = halfBits(h);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToHalf(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7FFFFFFFu;
    if (absx >= 0x7F800000u) // inf or nan
        return static_cast<uint16_t>(sign | 0x7C00u | (absx > 0x7F800000u ? 0x200u : 0u));
    if (absx >= 0x477FF000u) // rounds to >= 65520: overflow to inf
        return static_cast<uint16_t>(sign | 0x7C00u);
    if (absx < 0x38800000u) { // subnormal half (or zero)
        float a;
        std::memcpy(&a, &absx, 4);
        // Scale so that the half subnormal unit (2^-24) becomes 1, then round to even.
        const float scaled = a * 16777216.0f;
        const uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));
        return static_cast<uint16_t>(sign | m);
    }
    // Normal: rebias exponent, round mantissa from 23 to 10 bits to nearest even.
    uint32_t mant = absx & 0x7FFFFFu;
    uint32_t exp = (absx >> 23) - 127 + 15;
    uint32_t half = (exp << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half; // may carry into the exponent, which is correct
    return static_cast<uint16_t>(sign | half);
}

float bf16ToFloat(uint16_t b)
{
    const uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

uint16_t floatToBf16(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return static_cast<uint16_t>((x >> 16) | 0x40u); // keep NaN a NaN
    const uint32_t lsb = (x >> 16) & 1u;
    x += 0x7FFFu + lsb;
    return static_cast<uint16_t>(x >> 16);
}

bool isNumeric(int32_t dtype)
{
    auto info = dtypeInfo(dtype);
    return info && info->numeric;
}

void decodeToFloat(int32_t dtype, const uint8_t *d, uint64_t first, uint64_t count, float *out)
{
    switch (static_cast<DType>(dtype)) {
    case DType::Float32: std::memcpy(out, d + 4 * first, 4 * count); return;
    case DType::Float16: widenHalves(d + 2 * first, count, out); return;
    case DType::BFloat16: widenBf16(d + 2 * first, count, out); return;
    case DType::Int8: widenIntegers<int8_t>(d + first, count, out); return;
    case DType::UInt8: widenIntegers<uint8_t>(d + first, count, out); return;
    case DType::Int16: widenIntegers<int16_t>(d + 2 * first, count, out); return;
    case DType::UInt16: widenIntegers<uint16_t>(d + 2 * first, count, out); return;
    default: {
        double buf[1024];
        for (uint64_t done = 0; done < count;) {
            const uint64_t n = std::min<uint64_t>(1024, count - done);
            decodeElements(dtype, d, first + done, n, buf);
            for (uint64_t i = 0; i < n; ++i)
                out[done + i] = static_cast<float>(buf[i]);
            done += n;
        }
    }
    }
}

void decodeElements(int32_t dtype, const uint8_t *d, uint64_t first, uint64_t count, double *out)
{
    const uint64_t end = first + count;
    auto each = [&](auto fn) {
        for (uint64_t i = first; i < end; ++i)
            *out++ = fn(i);
    };
    switch (static_cast<DType>(dtype)) {
    case DType::Float32: each([&](uint64_t i) { return double(load<float>(d + 4 * i)); }); break;
    case DType::Double: each([&](uint64_t i) { return load<double>(d + 8 * i); }); break;
    case DType::Float16: each([&](uint64_t i) { return double(halfToFloat(load<uint16_t>(d + 2 * i))); }); break;
    case DType::BFloat16: each([&](uint64_t i) { return double(bf16ToFloat(load<uint16_t>(d + 2 * i))); }); break;
    case DType::Int8: each([&](uint64_t i) { return double(static_cast<int8_t>(d[i])); }); break;
    case DType::UInt8: each([&](uint64_t i) { return double(d[i]); }); break;
    case DType::Bool: each([&](uint64_t i) { return d[i] ? 1.0 : 0.0; }); break;
    case DType::Int16: each([&](uint64_t i) { return double(load<int16_t>(d + 2 * i)); }); break;
    case DType::UInt16: each([&](uint64_t i) { return double(load<uint16_t>(d + 2 * i)); }); break;
    case DType::Int32: each([&](uint64_t i) { return double(load<int32_t>(d + 4 * i)); }); break;
    case DType::UInt32: each([&](uint64_t i) { return double(load<uint32_t>(d + 4 * i)); }); break;
    case DType::Int64: each([&](uint64_t i) { return double(load<int64_t>(d + 8 * i)); }); break;
    case DType::UInt64: each([&](uint64_t i) { return double(load<uint64_t>(d + 8 * i)); }); break;
    case DType::Int4:
        each([&](uint64_t i) {
            const int v = int(nibble(d, i));
            return double(v >= 8 ? v - 16 : v);
        });
        break;
    case DType::UInt1: each([&](uint64_t i) { return double((d[i / 8] >> (i % 8)) & 1u); }); break;
    case DType::Float8E5M2: each([&](uint64_t i) { return decodeMini(d[i], 5, 2, Special::Ieee); }); break;
    case DType::Float8E4M3FN:
        each([&](uint64_t i) { return decodeMini(d[i], 4, 3, Special::FiniteNanOnlyAllOnes); });
        break;
    case DType::Float8E8M0:
        each([&](uint64_t i) {
            return d[i] == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(d[i]) - 127);
        });
        break;
    case DType::Float6E3M2: each([&](uint64_t i) { return decodeMini(d[i] & 0x3Fu, 3, 2, Special::None); }); break;
    case DType::Float6E2M3: each([&](uint64_t i) { return decodeMini(d[i] & 0x3Fu, 2, 3, Special::None); }); break;
    case DType::Float4E2M1: each([&](uint64_t i) { return decodeMini(nibble(d, i), 2, 1, Special::None); }); break;
    case DType::Float4E1M2: each([&](uint64_t i) { return decodeMini(nibble(d, i), 1, 2, Special::None); }); break;
    default: throw Error("dtype " + dtypeName(dtype) + " has no numeric conversion");
    }
}

std::vector<float> toFloat(const Tensor &t)
{
    if (!t.hasData)
        throw Error("tensor has no data (statistics or description only)");
    const uint64_t n = t.elementCount();
    auto need = dtypeBytes(t.dtype, n);
    if (!need || !isNumeric(t.dtype))
        throw Error("dtype " + dtypeName(t.dtype) + " has no numeric conversion");
    if (*need > t.data.size())
        throw Error("payload of " + std::to_string(t.data.size()) + " bytes is shorter than the " +
                    std::to_string(*need) + " its dims need");
    std::vector<float> out(n);
    if (t.dtype == static_cast<int32_t>(DType::Float32)) {
        std::memcpy(out.data(), t.data.data(), n * 4);
        return out;
    }
    constexpr uint64_t kChunk = 4096;
    double buf[kChunk];
    for (uint64_t i = 0; i < n; i += kChunk) {
        const uint64_t c = std::min(kChunk, n - i);
        decodeElements(t.dtype, t.data.data(), i, c, buf);
        for (uint64_t j = 0; j < c; ++j)
            out[i + j] = static_cast<float>(buf[j]);
    }
    return out;
}

} // namespace llmscope
