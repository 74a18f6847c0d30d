// The machine's plain memory-read rate: sums a buffer larger than the caches, best of a few
// passes. The compare benchmark prints it beside its own rate, measured in the same run.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? size_t(std::atoi(argv[1])) : 512;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<uint64_t> buf(mib << 17, 1); // mib MiB, touched so every page is resident
    double best = 0;
    uint64_t total = 0;
    for (int pass = 0; pass < 5; ++pass) {
        std::vector<uint64_t> sums(threads);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const size_t per = buf.size() / threads, begin = t * per,
                             end = t + 1 == threads ? buf.size() : begin + per;
                uint64_t s = 0;
                for (size_t i = begin; i < end; ++i)
                    s += buf[i];
                sums[t] = s;
            });
        for (auto &th : pool)
            th.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (auto x : sums)
            total += x;
        best = std::max(best, double(buf.size() * 8) / s / 1e9);
    }
    std::printf("memory read: %.2f GB/s (%u threads, %zu MiB, checksum %llu)\n", best, threads, mib,
                (unsigned long long)total);
    return 0;
}
