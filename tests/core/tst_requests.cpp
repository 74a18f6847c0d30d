// The requests of a dump told apart by sequence and position, and one request's view: its
// rounds alone, renumbered, the rows of its tokens cut out of rounds shared with other
// sequences, what is laid out by the whole batch or cache left out.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

#include "core/dump/dump_layout.h"
#include "core/dump/token_record.h"
#include "core/requests/request_view.h"
#include "core/requests/requests.h"
#include "core/tensor/bin_file.h"
#include "core/tensor/dtype.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

using namespace llmscope;
namespace fs = std::filesystem;

namespace {

TokenRecord record(std::vector<int32_t> sequences, std::vector<int32_t> positions, std::vector<int32_t> outputs = {})
{
    TokenRecord r;
    r.tokens.assign(sequences.size(), 7);
    r.sequences = std::move(sequences);
    r.positions = std::move(positions);
    r.outputs = std::move(outputs);
    return r;
}

Tensor floats(std::vector<int64_t> dims, float first)
{
    Tensor t;
    t.dtype = int32_t(DType::Float32);
    t.dims = std::move(dims);
    t.hasData = true;
    std::vector<float> v(size_t(elementCount(t.dims)));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = first + float(i);
    t.data.assign(reinterpret_cast<const uint8_t *>(v.data()), reinterpret_cast<const uint8_t *>(v.data() + v.size()));
    return t;
}

std::vector<float> values(const Tensor &t)
{
    std::vector<float> v(t.data.size() / sizeof(float));
    std::memcpy(v.data(), t.data.data(), t.data.size());
    return v;
}

} // namespace

class TstRequests : public QObject {
    Q_OBJECT
private slots:
    // A sequence's positions going back start its next request; rounds computing several
    // sequences belong to each of their requests, marked shared; rounds without sequences to none.
    void requestsAreToldApartBySequenceAndPosition()
    {
        std::map<int64_t, TokenRecord> rounds;
        rounds[0] = record({0, 0}, {0, 1}); // a server's check at start
        rounds[1] = record({0, 0, 0}, {0, 1, 2}); // slot 0's prompt
        rounds[2] = record({0, 1, 1}, {3, 0, 1}); // slot 0's token beside slot 1's prompt
        rounds[3] = record({1}, {2});
        rounds[4] = TokenRecord{{5}, false, {9}, {}, {}}; // embeddings fed: no sequence recorded
        rounds[5] = record({1}, {0}); // slot 1's next request
        const auto r = requestsOf(rounds);
        QCOMPARE(r.size(), size_t(4));
        QCOMPARE(r[0].rounds, (std::vector<int64_t>{0}));
        QCOMPARE(r[1].sequence, 0);
        QCOMPARE(r[1].rounds, (std::vector<int64_t>{1, 2}));
        QCOMPARE(r[1].lastPosition, 3);
        QCOMPARE(r[1].tokens, uint64_t(4));
        QVERIFY(r[1].shared);
        QCOMPARE(r[2].number, 3);
        QCOMPARE(r[2].sequence, 1);
        QCOMPARE(r[2].rounds, (std::vector<int64_t>{2, 3}));
        QCOMPARE(r[2].firstPosition, 0);
        QCOMPARE(r[2].lastPosition, 2);
        QCOMPARE(r[3].rounds, (std::vector<int64_t>{5}));
        QVERIFY(!r[3].shared);
        QCOMPARE(describeRequest(r[2]),
                 std::string("request 3: sequence 1, positions 0-2, 3 token(s) in 2 round(s) 2-3 "
                             "(some shared with other sequences)"));

        QCOMPARE(chooseRequest(r, {2, -1}, "d").number, 2);
        // Positions not recorded (a device's rounds): one request, said so.
        std::map<int64_t, TokenRecord> unplaced;
        unplaced[0] = TokenRecord{{5, 6}, false, {}, {0, 0}, {}};
        const auto u = requestsOf(unplaced);
        QCOMPARE(u.size(), size_t(1));
        QCOMPARE(describeRequest(u[0]),
                 std::string("request 1: sequence 0, positions not recorded, 2 token(s) in 1 round(s) 0"));
        QVERIFY_THROWS_EXCEPTION(Error, chooseRequest(r, {0, 1}, "d")); // sequence 1 served two
    }

    void choosingSaysWhatTheDumpHolds_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("sequence with two") << "--my-seq"
                                           << "0"
                                           << "d: sequence 0 served 2 requests (1, 2); choose one by number";
        QTest::newRow("no such sequence") << "--my-seq"
                                          << "4"
                                          << "d: no round computed sequence 4";
        QTest::newRow("no such request") << "--my-request"
                                         << "9"
                                         << "d holds 3 request(s); there is no request 9";
        QTest::newRow("not a number") << "--my-request"
                                      << "x"
                                      << "--my-request: 'x' is not a request number";
        QTest::newRow("request 0") << "--my-request"
                                   << "0"
                                   << "--my-request: '0' is not a request number";
        QTest::newRow("negative sequence") << "--my-seq"
                                           << "-1"
                                           << "--my-seq: '-1' is not a sequence id";
    }
    void choosingSaysWhatTheDumpHolds()
    {
        QFETCH(QString, option);
        QFETCH(QString, value);
        QFETCH(QString, message);
        std::map<int64_t, TokenRecord> rounds;
        rounds[0] = record({0}, {0});
        rounds[1] = record({0, 1}, {0, 0});
        try {
            const auto choice = parseRequestChoice(option.toStdString(), value.toStdString(), option.endsWith("seq"));
            chooseRequest(requestsOf(rounds), choice, "d");
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
        }
        try {
            chooseRequest({}, {1, -1}, "old");
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromStdString(e.what()).contains("record no sequences"), e.what());
        }
    }

    // Round 0 computed slot 1's two prompt tokens beside slot 0's one (outputs: slot 0's token
    // and slot 1's last); round 1 slot 1's next token alone. The view of slot 1's request: its
    // rows of each per-token file, its output row, a cache write's rows with their cells and
    // positions; the token ids, the mask and the shared round's whole-batch files left out; the
    // lone round whole; both rounds' token records cut to the request.
    void aRequestsViewHoldsItsRowsAlone()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString() + "/msit_dump_20260101_000000";
        const int64_t pid = 42;
        auto at = [&](int64_t round, const std::string &below) {
            return root + "/" + roundFolder(0, pid, round) + "/" + below;
        };
        for (int64_t round : {0, 1})
            makeDirs(root + "/" + roundFolder(0, pid, round));
        auto write = [](const std::string &path, const Tensor &t) {
            makeDirs(fs::path(path).parent_path().string());
            writeBin(path, t);
        };
        auto rec = [&](int64_t round, const TokenRecord &r) {
            makeDirs(fs::path(root + "/" + tokenRecordPath(pid, round)).parent_path().string());
            writeFileAtomic(root + "/" + tokenRecordPath(pid, round),
                            tokenRecordJson(round, r.tokens, false, r.positions, r.sequences, r.outputs));
        };
        rec(0, record({0, 1, 1}, {5, 0, 1}, {0, 2}));
        rec(1, record({1}, {2}));
        write(at(0, "1_Layer/2_MUL_MAT/after/outtensor0.bin"), floats({3, 2}, 0)); // one row a token
        write(at(0, "1_Layer/9_GET_ROWS/after/outtensor0.bin"), floats({2, 4}, 100)); // one row an output
        write(at(0, "1_Layer/20_FLASH_ATTN_EXT/before/intensor3.bin"), floats({3, 8}, 0)); // the mask
        write(at(0, "1_Layer/20_FLASH_ATTN_EXT/before/intensor0.bin"),
              floats({4, 3, 2}, 0)); // a token dimension inside
        Tensor ids = floats({3}, 0);
        ids.dtype = int32_t(DType::Int32);
        write(at(0, "0_Embedding/0_GET_ROWS/before/intensor1.bin"), ids);
        Tensor rows = floats({3, 2}, 10);
        rows.setAttr("llmscope_kv_rows", "written");
        rows.setAttr("llmscope_kv_cells", "40,41,42");
        rows.setAttr("llmscope_kv_positions", "5,0,1");
        write(at(0, "1_Layer/11_SET_ROWS/after/outtensor0.bin"), rows);
        write(at(1, "1_Layer/2_MUL_MAT/after/outtensor0.bin"), floats({2}, 50));
        write(at(1, "1_Layer/20_FLASH_ATTN_EXT/before/intensor3.bin"), floats({1, 8}, 0));

        const auto requests = requestsOf(readTokenRecords(root));
        QCOMPARE(requests.size(), size_t(2));
        const RequestView v = viewOfRequest(root, requests[1], dir.path().toStdString() + "/view");
        QCOMPARE(v.rounds, 2);
        QCOMPARE(v.whole, 1);
        QCOMPARE(v.sliced, 3);
        QCOMPARE(v.leftOut, 4); // the shared round's ids, mask and attention input; the lone round's mask
        auto in = [&](int64_t round, const std::string &below) {
            return v.dump + "/" + roundFolder(0, pid, round) + "/" + below;
        };
        const Tensor mm = readBin(in(0, "1_Layer/2_MUL_MAT/after/outtensor0.bin"));
        QCOMPARE(mm.dims, (std::vector<int64_t>{2, 2}));
        QCOMPARE(values(mm), (std::vector<float>{2, 3, 4, 5}));
        const Tensor out = readBin(in(0, "1_Layer/9_GET_ROWS/after/outtensor0.bin"));
        QCOMPARE(out.dims, (std::vector<int64_t>{4})); // one output: that row, as a one-token round's
        QCOMPARE(values(out), (std::vector<float>{104, 105, 106, 107}));
        const Tensor kv = readBin(in(0, "1_Layer/11_SET_ROWS/after/outtensor0.bin"));
        QCOMPARE(kv.attr("llmscope_kv_cells").value_or(""), std::string("41,42"));
        QCOMPARE(kv.attr("llmscope_kv_positions").value_or(""), std::string("0,1"));
        QCOMPARE(values(kv), (std::vector<float>{12, 13, 14, 15}));
        for (const char *gone :
             {"1_Layer/20_FLASH_ATTN_EXT/before/intensor3.bin", "1_Layer/20_FLASH_ATTN_EXT/before/intensor0.bin",
              "0_Embedding/0_GET_ROWS/before/intensor1.bin"})
            QVERIFY2(!fs::exists(in(0, gone)), gone);
        QCOMPARE(values(readBin(in(1, "1_Layer/2_MUL_MAT/after/outtensor0.bin"))), (std::vector<float>{50, 51}));
        QVERIFY(!fs::exists(in(1, "1_Layer/20_FLASH_ATTN_EXT/before/intensor3.bin")));
        const auto tokens = readTokenRecords(v.dump);
        QCOMPARE(tokens.size(), size_t(2));
        QCOMPARE(tokens.at(0).positions, (std::vector<int32_t>{0, 1}));
        QCOMPARE(tokens.at(0).sequences, (std::vector<int32_t>{1, 1}));
        QCOMPARE(tokens.at(1).positions, (std::vector<int32_t>{2}));

        // Up to position 1: the lone round's token is past it, and its round left out.
        const RequestView upTo = viewOfRequest(root, requests[1], dir.path().toStdString() + "/view1", 1);
        QCOMPARE(upTo.rounds, 1);
        QCOMPARE(readTokenRecords(upTo.dump).size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TstRequests)
#include "tst_requests.moc"
