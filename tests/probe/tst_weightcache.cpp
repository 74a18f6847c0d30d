// Weights' statistics kept between runs (probe/weight_cache.h): a model file's read-only
// mapping is found and named by the file's identity, its entries read back bit for bit, a
// changed file or a cache file that does not read is read again, and a second real run of
// llama.cpp takes its weights from the cache with a dump identical to the first's.
#include <QTest>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <limits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/dump/probe_status.h"
#include "core/tensor/sketch.h"
#include "probe/weight_cache.h"
#include "tests/engine/engine_run.h"

using namespace llmscope;
using namespace llmscope::probe;

namespace {
const QString kBin = LLMSCOPE_BIN_DIR;
const QString kProbe = LLMSCOPE_PROBE;

TensorStats someStats(float seed)
{
    TensorStats s;
    s.count = 66304;
    s.max = 0.1 * seed;
    s.min = -0.3 / seed;
    s.mean = 1.0 / 3.0 * seed;
    s.l2norm = std::sqrt(2.0) * seed;
    s.zeroCount = 7;
    s.digest = 0xc613cd7feacba33eull ^ uint64_t(seed * 1000);
    for (int i = 0; i < kSketchBuckets; ++i)
        s.sketch.push_back(std::sin(float(i) * seed) * 1e-3f);
    return s;
}

void sameStats(const TensorStats &a, const TensorStats &b)
{
    QCOMPARE(a.count, b.count);
    QCOMPARE(std::isnan(a.max), std::isnan(b.max));
    if (!std::isnan(a.max)) {
        QCOMPARE(a.max, b.max);
        QCOMPARE(a.min, b.min);
    }
    QCOMPARE(a.mean, b.mean); // exact: the text is hexadecimal
    QCOMPARE(a.l2norm, b.l2norm);
    QCOMPARE(a.nanCount, b.nanCount);
    QCOMPARE(a.infCount, b.infCount);
    QCOMPARE(a.zeroCount, b.zeroCount);
    QCOMPARE(a.digest, b.digest);
    QCOMPARE(a.sketch, b.sketch);
}

// Every file under a dump's tensors/ folder, by its path below the process's own folder.
QMap<QString, QByteArray> tensorFiles(const QString &root)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const qsizetype at = path.indexOf("/tensors/");
        if (at < 0)
            continue;
        QString rel = path.mid(at + 9);
        rel = rel.mid(rel.indexOf('/')); // "0_<pid>" differs between runs
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        files.insert(rel, f.readAll());
    }
    return files;
}

QString cacheFile(const QString &folder)
{
    const QStringList l = QDir(folder).entryList({"w-*.txt"}, QDir::Files);
    return l.size() == 1 ? folder + "/" + l[0] : QString();
}
} // namespace

class TstWeightCache : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

    // One run of the sample target with the probe: statistics of every node, the cache in
    // `cache`. Its probe status.
    ProbeStatus dumped(const QString &name, const QString &cache)
    {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_PRELOAD", QStringLiteral(LLMSCOPE_PRELOAD_FIRST) + kProbe);
        const QString root = m_dir.path() + "/" + name;
        env.insert("LLMSCOPE_DUMP_ROOT", root);
        env.insert("LLMSCOPE_TYPE", "stats");
        env.insert("LLMSCOPE_ER", "all");
        env.insert("LLMSCOPE_WEIGHT_CACHE", cache);
        const auto r = engine::run(kBin + "/llmscope-sample-generate", {"-m", m_model, "-n", "3"}, env);
        if (r.exitCode != 0)
            qWarning("%s", qPrintable(r.stderrText));
        const auto st = readProbeStatuses(root.toStdString());
        return st.size() == 1 ? st[0] : ProbeStatus{};
    }

private slots:
    void initTestCase()
    {
        m_model = m_dir.path() + "/m.gguf";
        QVERIFY(engine::makeModel(kBin, {"--out", m_model, "--layers", "2"}));
    }

    void theTextReadsBackExactly()
    {
        WeightCacheEntries e;
        e[{7776, 265216, 66304, 0, true}] = someStats(1.7f);
        TensorStats odd = someStats(0.3f);
        odd.max = odd.min = std::numeric_limits<double>::quiet_NaN(); // torch's max of a NaN
        odd.nanCount = 3;
        odd.infCount = 1;
        odd.sketch.clear(); // not finite: no sketch
        e[{0, 8, 2, 1, false}] = odd;
        const auto back = parseWeightCache(weightCacheText(e));
        QVERIFY(back);
        QCOMPARE(back->size(), e.size());
        for (const auto &[k, s] : e) {
            QVERIFY(back->count(k));
            sameStats(back->at(k), s);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void aFileThatIsNotWhollyACacheReadsAsNone()
    {
        WeightCacheEntries e;
        e[{7776, 265216, 66304, 0, true}] = someStats(1.7f);
        e[{300000, 1024, 256, 0, true}] = someStats(2.5f);
        const std::string good = weightCacheText(e);
        QVERIFY(parseWeightCache(good));
        const size_t first = good.find('\n') + 1, second = good.find('\n', first) + 1;
        const std::string head = good.substr(0, first), line = good.substr(first, second - first); // the first weight's
        // the first weight's line with field k replaced
        const auto with = [&](size_t k, const std::string &v) {
            auto f = QString::fromStdString(line.substr(0, line.size() - 1)).split(' ');
            f[qsizetype(k)] = QString::fromStdString(v);
            return head + f.join(' ').toStdString() + "\n";
        };
        const std::vector<std::string> bad = {
            "",
            good.substr(0, good.size() - 1), // cut inside the last line
            good.substr(0, good.size() / 2), // truncated
            "llmscope weight statistics 1 s2. d2.\n" + line, // an earlier definition (hexadecimal floats)
            "llmscope weight statistics 2 s2. d2.\n" + line, // an earlier definition (other sums)
            "llmscope weight statistics 3 s1. d2.\n" + line, // another sketch
            good + line, // one weight twice
            with(0, "-1"), // a negative offset
            with(0, "99999999999999999999"), // beyond 64 bits
            with(4, "2"), // a sketch flag of 2
            with(6, "3fb999999999999"), // 15 digits
            with(6, "0x1.999999999999ap-4"), // not the bits
            with(13, "c613cd7feacba33"), // a digest of 15 digits
            with(14, "3f800000,3f800000"), // 2 sums
            head + line.substr(0, line.rfind(' ')) + "\n", // 14 fields
            good + std::string(1, '\0') + "\n",
        };
        for (size_t i = 0; i < bad.size(); ++i)
            QVERIFY2(!parseWeightCache(bad[i]), qPrintable(QString::number(i)));
    }

    void aReadOnlyFileMappingIsFoundAndKept()
    {
        const QString path = m_dir.path() + "/weights.bin";
        QByteArray bytes(3 * 4096, '\0');
        for (int i = 0; i < bytes.size(); ++i)
            bytes[i] = char(i * 7);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        }
        const int fd = ::open(path.toLocal8Bit().constData(), O_RDONLY);
        QVERIFY(fd >= 0);
        void *shared = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, fd, 0);
        void *writable = ::mmap(nullptr, bytes.size(), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        void *privately = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        QVERIFY(shared != MAP_FAILED && writable != MAP_FAILED && privately != MAP_FAILED);
        const auto *data = static_cast<const uint8_t *>(shared);

        const QString folder = m_dir.path() + "/unit-cache";
        WeightCache cache(folder.toStdString());
        const auto p = cache.locate(data + 4100, 400, 0, 100, true);
        QVERIFY(p);
        QCOMPARE(p->offset, uint64_t(4100));
        QVERIFY(QString::fromStdString(p->file).startsWith("w-"));
        // Not a file's bytes, or not only them: nothing to keep.
        const std::vector<float> anonymous(100);
        QVERIFY(!cache.locate(reinterpret_cast<const uint8_t *>(anonymous.data()), 400, 0, 100, true));
        QVERIFY(!cache.locate(static_cast<const uint8_t *>(writable) + 4100, 400, 0, 100, true));
        // private: pages written before it was made read-only would not be the file's
        QVERIFY(!cache.locate(static_cast<const uint8_t *>(privately) + 4100, 400, 0, 100, true));
        QVERIFY(!cache.locate(data + 3 * 4096 - 100, 400, 0, 100, true)); // runs past the mapping
        QVERIFY(!WeightCache("").locate(data + 4100, 400, 0, 100, true)); // no folder: kept nowhere

        QVERIFY(!cache.find(*p));
        cache.store(*p, someStats(1.5f));
        cache.flush();
        QVERIFY(!cacheFile(folder).isEmpty());
        WeightCache later(folder.toStdString()); // the next run
        const auto kept = later.find(*p);
        QVERIFY(kept);
        sameStats(*kept, someStats(1.5f));
        QCOMPARE(later.hits(), uint64_t(1));
        auto other = *p;
        other.sketch = false; // another read of the same bytes
        QVERIFY(!later.find(other));

        // The file changed (its times do, whatever its bytes): another identity, read again.
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(4100);
            f.write("x");
        }
        const struct timespec times[2] = {{1000, 0}, {1000, 0}};
        QVERIFY(::utimensat(AT_FDCWD, path.toLocal8Bit().constData(), times, 0) == 0);
        const auto changed = later.locate(data + 4100, 400, 0, 100, true);
        QVERIFY(changed);
        QVERIFY(changed->file != p->file);
        QVERIFY(!later.find(*changed));
        ::munmap(shared, bytes.size());
        ::munmap(writable, bytes.size());
        ::munmap(privately, bytes.size());
    }

    void aFolderThatRefusesKeepsNothing()
    {
        WeightCache::Place p;
        p.file = "w-1-2-3-4.000000000-5.000000000.txt";
        // Under a regular file: no folder, nothing written, nothing thrown.
        const QString blocker = m_dir.path() + "/a-file";
        QFile f(blocker);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        WeightCache under((blocker + "/weights").toStdString());
        under.store(p, someStats(1.0f));
        under.flush();
        QVERIFY(!QFileInfo::exists(blocker + "/weights"));
        // The cache file's name taken by a folder: the rename fails and nothing is left aside.
        const QString taken = m_dir.path() + "/taken";
        QVERIFY(QDir().mkpath(taken + "/" + QString::fromStdString(p.file)));
        WeightCache refused(taken.toStdString());
        refused.store(p, someStats(1.0f));
        refused.flush();
        QCOMPARE(QDir(taken).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{QString::fromStdString(p.file)});
        // A folder other users may write: its files are not believed, nor is one written there.
        const QString shared = m_dir.path() + "/shared";
        {
            WeightCache mine(shared.toStdString());
            mine.store(p, someStats(1.0f));
            mine.flush();
        }
        QVERIFY(!cacheFile(shared).isEmpty());
        QVERIFY(WeightCache(shared.toStdString()).find(p)); // this user's folder: read
        QVERIFY(QFile::setPermissions(shared,
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                          QFileDevice::WriteGroup | QFileDevice::ExeGroup | QFileDevice::WriteOther |
                                          QFileDevice::ExeOther));
        WeightCache theirs(shared.toStdString());
        QVERIFY(!theirs.find(p));
        auto other = p;
        other.offset = 7;
        theirs.store(other, someStats(2.0f));
        theirs.flush();
        QFile::setPermissions(shared, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QVERIFY(!WeightCache(shared.toStdString()).find(other));
    }

    void aSecondRunTakesTheModelFilesWeightsFromTheCache()
    {
        const QString cache = m_dir.path() + "/cache";
        const ProbeStatus first = dumped("first", cache);
        QVERIFY(first.finished);
        QCOMPARE(first.weightsCached, uint64_t(0));
        const QString file = cacheFile(cache);
        QVERIFY(!file.isEmpty());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const qsizetype weights = f.readAll().count('\n') - 1;
        QVERIFY(weights > 0);

        const ProbeStatus second = dumped("second", cache);
        QVERIFY(second.finished);
        QCOMPARE(second.weightsCached, uint64_t(weights)); // every weight of the model file
        const auto want = tensorFiles(m_dir.path() + "/first");
        QVERIFY(want.size() > weights);
        QCOMPARE(tensorFiles(m_dir.path() + "/second"), want); // bit for bit

        // Off: read again, nothing kept.
        QCOMPARE(dumped("off", "off").weightsCached, uint64_t(0));

        // A cache file that does not read is read as none, and written again whole.
        {
            QFile w(file);
            QVERIFY(w.open(QIODevice::WriteOnly | QIODevice::Truncate));
            w.write("llmscope weight statistics 1 s2. d2.\n1 2 3\n");
        }
        QCOMPARE(dumped("hostile", cache).weightsCached, uint64_t(0));
        QCOMPARE(tensorFiles(m_dir.path() + "/hostile"), want);
        QCOMPARE(dumped("mended", cache).weightsCached, uint64_t(weights));

        // The model file touched: another identity, its weights read again.
        const struct timespec times[2] = {{2000, 0}, {2000, 0}};
        QVERIFY(::utimensat(AT_FDCWD, m_model.toLocal8Bit().constData(), times, 0) == 0);
        QCOMPARE(dumped("touched", cache).weightsCached, uint64_t(0));
        QCOMPARE(tensorFiles(m_dir.path() + "/touched"), want);
    }

    void llmscopeDumpKeepsThemInTheUsersCache()
    {
        if (!QFileInfo::exists(kBin + "/llmscope")) // the ThreadSanitizer build: core, the probe and their suites
            QSKIP("llmscope's programs are not built in this configuration");
        const QString home = m_dir.path() + "/xdg";
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("LLMSCOPE_WEIGHT_CACHE");
        env.insert("XDG_CACHE_HOME", home);
        QString said;
        for (const QString &out : {QStringLiteral("u1"), QStringLiteral("u2")}) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(kBin + "/llmscope",
                    {"dump", "--exec", kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", "--type", "stats",
                     "-o", m_dir.path() + "/" + out});
            QVERIFY(p.waitForFinished(120000));
            QCOMPARE(p.exitCode(), 0);
            said = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        }
        QVERIFY(!cacheFile(home + "/llmscope/weights").isEmpty());
        QVERIFY2(said.contains(QRegularExpression("weights: +[1-9][0-9]* weights' statistics from an earlier run")),
                 qPrintable(said));
        // The program's own setting (here in --exec, as the window's launch dialog sets one) wins.
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(kBin + "/llmscope",
                {"dump", "--exec",
                 "LLMSCOPE_WEIGHT_CACHE=off " + kBin + "/llmscope-sample-generate -m " + m_model + " -n 2", "--type",
                 "stats", "-o", m_dir.path() + "/u3"});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        said = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        QVERIFY2(!said.contains("weights' statistics from an earlier run"), qPrintable(said));
        QVERIFY2(said.contains("tensors written"), qPrintable(said));
    }
};

QTEST_GUILESS_MAIN(TstWeightCache)
#include "tst_weightcache.moc"
