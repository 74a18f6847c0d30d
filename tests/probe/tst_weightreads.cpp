// Weights' statistics read beside the program (probe/weight_reads.h): what the writer takes is
// what the weight held, whether the writer or the weight's buffer's free computed it, and no
// weight is read after its buffer's free or its mapping's unmap returned (its memory is
// overwritten here right after).
#include <QTest>

#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "core/tensor/stats.h"
#include "probe/weight_reads.h"

using namespace llmscope;
using namespace llmscope::probe;

namespace {

// A stand-in for a ggml buffer: only its address is used.
ggml_backend_buffer_t handle(int &slot)
{
    return reinterpret_cast<ggml_backend_buffer_t>(&slot);
}

std::vector<float> weight(size_t n, float scale)
{
    std::vector<float> w(n);
    for (size_t i = 0; i < n; ++i)
        w[i] = scale * std::sin(float(i) * 0.37f);
    return w;
}

// float32 elements at data
WeightReads::Read readAt(ggml_backend_buffer_t b, const uint8_t *data, uint64_t elements)
{
    WeightReads::Read r;
    r.buffer = b;
    r.data = data;
    r.elements = elements;
    r.bytes = elements * sizeof(float);
    return r;
}

WeightReads::Read readOf(ggml_backend_buffer_t b, const std::vector<float> &w)
{
    return readAt(b, reinterpret_cast<const uint8_t *>(w.data()), w.size());
}

void poison(std::vector<float> &w)
{
    std::fill(w.begin(), w.end(), std::numeric_limits<float>::quiet_NaN());
}

void compareStats(const std::optional<TensorStats> &got, const std::optional<TensorStats> &want)
{
    QVERIFY(got && want);
    QCOMPARE(got->count, want->count);
    QCOMPARE(got->max, want->max);
    QCOMPARE(got->min, want->min);
    QCOMPARE(got->mean, want->mean);
    QCOMPARE(got->l2norm, want->l2norm);
    QCOMPARE(got->nanCount, uint64_t(0));
    QCOMPARE(got->sketch, want->sketch);
    QCOMPARE(got->digest, want->digest);
}

std::optional<TensorStats> statsOf(const std::vector<float> &w)
{
    return computeStats(0, reinterpret_cast<const uint8_t *>(w.data()), w.size());
}

} // namespace

class TestWeightReads : public QObject {
    Q_OBJECT
private slots:
    void theWriterReadsTheWeight()
    {
        static int slot = 0;
        WeightReads &r = WeightReads::get();
        auto w = weight(1000, 2.0f);
        const auto want = statsOf(w);
        const uint64_t id = r.add(readOf(handle(slot), w));
        compareStats(r.take(id), want);
        QVERIFY(!r.take(id)); // taken once
    }

    // The program frees a buffer before the writer came to its weights: the free computes them
    // (on every core), the writer takes those results, and the memory is not read again.
    void aFreeComputesWhatIsPendingAndNothingIsReadAfter()
    {
        static int freed = 0, kept = 0;
        WeightReads &r = WeightReads::get();
        std::vector<std::vector<float>> ws;
        for (int i = 0; i < 5; ++i)
            ws.push_back(weight(4096 + size_t(i) * 64, 1.0f + float(i)));
        auto other = weight(300, 0.5f);
        std::vector<std::optional<TensorStats>> want;
        std::vector<uint64_t> ids;
        for (const auto &w : ws) {
            want.push_back(statsOf(w));
            ids.push_back(r.add(readOf(handle(freed), w)));
        }
        const auto otherWant = statsOf(other);
        const uint64_t otherId = r.add(readOf(handle(kept), other));
        r.freeing(handle(freed));
        for (auto &w : ws)
            poison(w); // the buffer's memory is gone
        for (size_t i = 0; i < ids.size(); ++i)
            compareStats(r.take(ids[i]), want[i]);
        compareStats(r.take(otherId), otherWant); // another buffer's weight: read when taken
    }

    // A free while the writer reads a weight of that buffer waits for the read to end, so the
    // writer's result is the weight's although its memory is overwritten right after the free.
    void aFreeWhileTheWriterReads()
    {
        static int slot = 0;
        WeightReads &r = WeightReads::get();
        auto w = weight(1 << 22, 3.0f); // 16 MB: a read of some milliseconds
        const auto want = statsOf(w);
        const uint64_t id = r.add(readOf(handle(slot), w));
        const uint64_t begun = r.readsBegun();
        std::optional<TensorStats> got;
        std::thread writer([&] { got = r.take(id); });
        while (r.readsBegun() == begun) // the writer has claimed it: the free must wait, not read
            std::this_thread::yield();
        r.freeing(handle(slot));
        poison(w);
        writer.join();
        compareStats(got, want);
    }

    // A mapped model file unmapped (a program that does not free the buffer over it first): the
    // weights inside the range are read before it goes, those outside are left to the writer.
    void anUnmapComputesTheWeightsInside()
    {
        static int slot = 0;
        WeightReads &r = WeightReads::get();
        auto file = weight(3000, 2.0f); // two weights inside one mapping, one outside
        auto outside = weight(100, 5.0f);
        const std::vector<float> a(file.begin(), file.begin() + 1000), b(file.begin() + 1000, file.end());
        const auto *base = reinterpret_cast<const uint8_t *>(file.data());
        const uint64_t ia = r.add(readAt(handle(slot), base, 1000));
        const uint64_t ib = r.add(readAt(handle(slot), base + 4000, 2000));
        const uint64_t io = r.add(readOf(handle(slot), outside));
        WeightReads::unmapping(file.data(), file.size() * sizeof(float));
        poison(file);
        compareStats(r.take(ia), statsOf(a));
        compareStats(r.take(ib), statsOf(b));
        compareStats(r.take(io), statsOf(outside));
    }

    // A buffer made of others (ggml's multi-buffer) frees its parts where the probe may not see
    // it: its free computes every pending weight.
    void aMultiBufferFreeComputesEveryWeight()
    {
        static int whole = 0, part = 0;
        WeightReads &r = WeightReads::get();
        auto w = weight(800, 1.5f);
        const auto want = statsOf(w);
        const uint64_t id = r.add(readOf(handle(part), w));
        r.freeing(handle(whole), true);
        poison(w);
        compareStats(r.take(id), want);
    }

    // Buffers are told apart by address: one freed, then another at the same address, is read.
    void aNewBufferAtTheSameAddressIsRead()
    {
        static int slot = 0;
        WeightReads &r = WeightReads::get();
        auto before = weight(500, 1.0f);
        const auto beforeWant = statsOf(before);
        const uint64_t old = r.add(readOf(handle(slot), before));
        r.freeing(handle(slot));
        poison(before);
        auto after = weight(700, 4.0f);
        const uint64_t id = r.add(readOf(handle(slot), after));
        compareStats(r.take(id), statsOf(after));
        compareStats(r.take(old), beforeWant); // computed at its free, before the memory went
    }

    // A read whose round was dropped is forgotten: its buffer's free does not read it (here its
    // memory is no memory at all, which a read would crash on).
    void aForgottenReadIsNotComputed()
    {
        static int slot = 0;
        WeightReads &r = WeightReads::get();
        const uint64_t id = r.add(readAt(handle(slot), nullptr, 1 << 20));
        r.forget(id);
        r.freeing(handle(slot));
        QVERIFY(!r.take(id));
    }
};

QTEST_GUILESS_MAIN(TestWeightReads)
#include "tst_weightreads.moc"
