#include "probe/buffer_pool.h"

#include <mutex>

namespace llmscope::probe {
namespace {
constexpr size_t kMaxPooled = 64u << 20; // bytes of capacity kept in the pool
constexpr size_t kMaxBuffer = 16u << 20; // larger buffers go back to malloc

struct Pool {
    std::mutex mutex;
    std::vector<std::vector<uint8_t>> free;
    size_t bytes = 0;
};
Pool &pool()
{
    static Pool *p = new Pool; // outlives every thread that may still return a buffer
    return *p;
}
} // namespace

std::vector<uint8_t> takeBuffer(size_t n)
{
    Pool &p = pool();
    std::vector<uint8_t> v;
    {
        std::lock_guard lock(p.mutex);
        if (!p.free.empty()) {
            v = std::move(p.free.back());
            p.free.pop_back();
            p.bytes -= v.capacity();
        }
    }
    v.resize(n);
    return v;
}

void giveBuffer(std::vector<uint8_t> &&buffer)
{
    if (buffer.capacity() == 0 || buffer.capacity() > kMaxBuffer)
        return;
    // Full size here, on the writer's thread: takeBuffer then only shrinks it, and the
    // target's thread never pays for zero-filling.
    buffer.resize(buffer.capacity());
    Pool &p = pool();
    std::lock_guard lock(p.mutex);
    if (p.bytes + buffer.capacity() > kMaxPooled)
        return;
    p.bytes += buffer.capacity();
    p.free.push_back(std::move(buffer));
}

} // namespace llmscope::probe
