// The Debian package: `cpack -G DEB` from this build, unpacked into a temporary root as dpkg
// lays it out (dpkg-deb -x), and the installed llmscope run against the sample program with
// nothing of the build behind it: dump (with the probe the package carries), compare, hunt,
// opcheck (ggml's CPU kernels it carries), the Python package, and the window offscreen.
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/engine/engine_run.h"

namespace {

const QString kBin = QStringLiteral(LLMSCOPE_BIN_DIR);

struct Ran {
    int code = -1;
    QString out, err;
};
Ran runProgram(const QString &program, const QStringList &args, const QProcessEnvironment &env, const QString &cwd = {})
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (!cwd.isEmpty())
        p.setWorkingDirectory(cwd);
    p.start(program, args);
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return {-1, {}, "timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// The environment of a user's shell: nothing that points llmscope at the build; its settings
// (recent dumps, the window's state) in config, not the user's.
QProcessEnvironment userEnvironment(const QString &config)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name :
         {"LLMSCOPE_PROBE_LIB", "LLMSCOPE_GGML_LIBRARY", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH"})
        env.remove(QString::fromLatin1(name));
    env.insert("XDG_CONFIG_HOME", config);
    return env;
}

// The ggml libraries the dynamic loader initialized in a run with LD_DEBUG=libs (its stderr).
QStringList ggmlLoaded(const QString &err)
{
    QStringList paths;
    static const QRegularExpression init(QStringLiteral("calling init: (\\S*libggml[^\\s]*)"));
    for (auto it = init.globalMatch(err); it.hasNext();)
        paths << QDir::cleanPath(it.next().captured(1)); // the run path gives ".../bin/../lib/..."
    return paths;
}

} // namespace

class TstPackage : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_deb, m_root, m_bin, m_golden, m_test, m_quantized;

    QProcessEnvironment userEnvironment() const { return ::userEnvironment(m_dir.filePath("config")); }

    QString sample(const QString &model) const { return kBin + "/llmscope-sample-generate -m " + model + " -n 2"; }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const Ran pack = runProgram("cpack",
                                    {"-G", "DEB", "-B", m_dir.filePath("pkg"), "--config",
                                     QStringLiteral(LLMSCOPE_BUILD_DIR) + "/CPackConfig.cmake"},
                                    QProcessEnvironment::systemEnvironment(), m_dir.path());
        QVERIFY2(pack.code == 0, qPrintable(pack.out + pack.err));
        const QStringList debs = QDir(m_dir.filePath("pkg")).entryList({"llmscope_*_amd64.deb"});
        QCOMPARE(debs.size(), 1);
        m_deb = m_dir.filePath("pkg/" + debs[0]);
        m_root = m_dir.filePath("root");
        const Ran unpack = runProgram("dpkg-deb", {"-x", m_deb, m_root}, QProcessEnvironment::systemEnvironment());
        QVERIFY2(unpack.code == 0, qPrintable(unpack.err));
        m_bin = m_root + "/usr/bin";
        m_golden = m_dir.filePath("f32.gguf");
        m_test = m_dir.filePath("corrupt.gguf");
        QVERIFY(engine::makeModel(kBin, {"--out", m_golden, "--layers", "2", "--width", "64", "--ff", "128"}));
        QVERIFY(engine::makeModel(
            kBin, {"--out", m_test, "--layers", "2", "--width", "64", "--ff", "128", "--corrupt-layer", "1"}));
        m_quantized = m_dir.filePath("q4_0.gguf");
        QVERIFY(engine::makeModel(kBin, {"--quantize", "q4_0", "--in", m_golden, "--out", m_quantized}));
    }

    // What the package holds, where the app looks for it; and what it needs: Debian's runtime
    // packages (each known to dpkg here, none a development package), never npm's.
    void holdsTheAppAndNeedsOnlyDebiansPackages()
    {
        for (const char *file :
             {"usr/bin/llmscope", "usr/lib/llmscope/libllmscope_gui.so", "usr/lib/llmscope/libllmscope_probe.so",
              "usr/lib/llmscope/libggml-base.so", "usr/lib/llmscope/libggml-cpu-x64.so",
              "usr/lib/python3/dist-packages/llmscope/__init__.py",
              "usr/lib/python3/dist-packages/llmscope/reference/llama.py", "usr/share/applications/llmscope.desktop",
              "usr/share/doc/llmscope/README.md"})
            QVERIFY2(QFileInfo(m_root + "/" + file).isFile(), file);
        QVERIFY(QDir(m_root).entryList(QDir::AllEntries | QDir::NoDotAndDotDot) == QStringList{"usr"});
        const Ran fields = runProgram("dpkg-deb", {"-f", m_deb, "Depends"}, QProcessEnvironment::systemEnvironment());
        QCOMPARE(fields.code, 0);
        const QStringList depends = fields.out.trimmed().split(QRegularExpression(",\\s*"), Qt::SkipEmptyParts);
        QVERIFY2(depends.size() >= 5, qPrintable(fields.out)); // libc, Qt, Graphviz, ...
        for (const QString &dep : depends) {
            const QString name = dep.section(QLatin1Char(' '), 0, 0).section(QLatin1Char(':'), 0, 0);
            QVERIFY2(!name.endsWith(QLatin1String("-dev")) && !name.contains(QLatin1String("node")), qPrintable(dep));
            const Ran known =
                runProgram("dpkg-query", {"-W", "-f=${Status}", name}, QProcessEnvironment::systemEnvironment());
            QVERIFY2(known.code == 0 && known.out == QLatin1String("install ok installed"),
                     qPrintable(name + ": " + known.out + known.err));
        }
        qInfo("Depends: %s", qPrintable(fields.out.trimmed()));
        // no run path into the build or the engine's npm folder: each library from the package
        for (const char *elf :
             {"usr/bin/llmscope", "usr/lib/llmscope/libllmscope_gui.so", "usr/lib/llmscope/libllmscope_probe.so",
              "usr/lib/llmscope/libggml-base.so", "usr/lib/llmscope/libggml-cpu-x64.so"}) {
            const Ran dyn = runProgram("readelf", {"-d", m_root + "/" + elf}, QProcessEnvironment::systemEnvironment());
            QCOMPARE(dyn.code, 0);
            for (const QString &line : dyn.out.split('\n'))
                if (line.contains(QLatin1String("RUNPATH")) || line.contains(QLatin1String("RPATH")))
                    QVERIFY2(!line.contains(QStringLiteral(LLMSCOPE_BUILD_DIR)) &&
                                 !line.contains(QStringLiteral(LLMSCOPE_SOURCE_DIR)) &&
                                 !line.contains(QLatin1String("node_modules")),
                             qPrintable(QString(elf) + ": " + line));
        }
    }

    // The installed llmscope dumps the sample program with its own probe, compares a corrupted
    // model's dump with the golden's, and hunts the corrupted weight.
    void dumpsComparesAndHunts()
    {
        const QProcessEnvironment env = userEnvironment();
        const QString golden = m_dir.filePath("golden"), test = m_dir.filePath("test");
        for (const auto &[model, out] : {std::pair{m_golden, golden}, std::pair{m_test, test}}) {
            const Ran dump = runProgram(m_bin + "/llmscope",
                                        {"dump", "--exec", sample(model), "--type", "model", "tensor", "-o", out}, env);
            QVERIFY2(dump.code == 0, qPrintable(dump.out + dump.err));
        }
        // the run's configuration lists the libraries the program loaded: the package's probe
        const QStringList runs = QDir(golden).entryList({"msit_dump_*"});
        QCOMPARE(runs.size(), 1);
        const QString goldenDump = golden + "/" + runs[0];
        const QStringList configs = QDir(goldenDump + "/llmscope").entryList({"*.json"});
        QVERIFY(!configs.isEmpty());
        QFile config(goldenDump + "/llmscope/" + configs[0]);
        QVERIFY(config.open(QIODevice::ReadOnly));
        QVERIFY2(config.readAll().contains((m_root + "/usr/lib/llmscope/libllmscope_probe.so").toUtf8()),
                 "the dump was not made with the package's probe");

        const QString testDump = test + "/" + QDir(test).entryList({"msit_dump_*"}).value(0);
        const Ran compare = runProgram(
            m_bin + "/llmscope",
            {"compare", "--golden-path", goldenDump, "--my-path", testDump, "-o", m_dir.filePath("cmp")}, env);
        QVERIFY2(compare.code == 1, qPrintable(compare.err)); // something failed
        QVERIFY2(QRegularExpression(QStringLiteral("first divergent: round 0, op \\S+ ffn_out-1 "))
                     .match(compare.out + compare.err)
                     .hasMatch(),
                 qPrintable(compare.out + compare.err));
        QVERIFY(!engine::compareReport(m_dir.filePath("cmp")).isEmpty());

        const Ran hunt = runProgram(
            m_bin + "/llmscope",
            {"hunt", "--golden", sample(m_golden), "--test", sample(m_test), "-o", m_dir.filePath("hunt")}, env);
        QVERIFY2(hunt.code == 0, qPrintable(hunt.err));
        const QStringList conclusion = engine::huntConclusion(hunt.err);
        QVERIFY2(!conclusion.isEmpty() && conclusion[0].startsWith(QLatin1String("found:")) &&
                     conclusion[0].contains(QLatin1String("ffn_out-1")),
                 qPrintable(hunt.err));
        QVERIFY2(hunt.err.contains(QLatin1String("blk.1.ffn_down.weight")), qPrintable(hunt.err));
    }

    // ggml from the package, never from the build: a quantized model's weights read back
    // (ggml's number formats) and opcheck's second reference, ggml's CPU kernels, each library
    // the loader initialized (LD_DEBUG) under the package's folder.
    void usesTheGgmlItCarries()
    {
        QProcessEnvironment env = userEnvironment();
        const QString out = m_dir.filePath("tiling"), quantizedOut = m_dir.filePath("quantized");
        Ran dump = runProgram(
            m_bin + "/llmscope",
            {"dump", "--exec", sample(m_golden), "--type", "model", "tensor", "-tiling", "-er", "0,0", "-o", out}, env);
        QVERIFY2(dump.code == 0, qPrintable(dump.err));
        dump = runProgram(m_bin + "/llmscope",
                          {"dump", "--exec", sample(m_quantized) + " --no-repack", "--type", "model", "tensor", "-er",
                           "0,0", "-o", quantizedOut},
                          env);
        QVERIFY2(dump.code == 0, qPrintable(dump.err));
        const QString golden = out + "/" + QDir(out).entryList({"msit_dump_*"}).value(0);
        const QString quantized = quantizedOut + "/" + QDir(quantizedOut).entryList({"msit_dump_*"}).value(0);
        env.insert("LD_DEBUG", "libs");
        const QString lib = m_root + "/usr/lib/llmscope/";
        const Ran opcheck =
            runProgram(m_bin + "/llmscope", {"opcheck", "-i", golden, "-o", m_dir.filePath("opcheck")}, env);
        QVERIFY2(opcheck.code == 0, qPrintable(opcheck.out));
        const QRegularExpressionMatch passed =
            QRegularExpression(QStringLiteral("(\\d+) PASS")).match(opcheck.out + opcheck.err);
        QVERIFY2(passed.hasMatch() && passed.captured(1).toInt() > 10, qPrintable(opcheck.out));
        QStringList loaded = ggmlLoaded(opcheck.err);
        QVERIFY2(std::any_of(loaded.begin(), loaded.end(),
                             [&](const QString &p) { return p.startsWith(lib + "libggml-cpu-"); }),
                 qPrintable(loaded.join(' '))); // ggml's CPU kernels replayed the ops
        const Ran compare = runProgram(
            m_bin + "/llmscope",
            {"compare", "--golden-path", golden, "--my-path", quantized, "-o", m_dir.filePath("quantized-cmp")}, env);
        QVERIFY2(compare.code == 0 || compare.code == 1, qPrintable(compare.out));
        QVERIFY2(compare.out.contains(QLatin1String("q4_0")) || compare.err.contains(QLatin1String("q4_0")),
                 qPrintable(compare.out.right(2000))); // the quantized weights read as such
        loaded << ggmlLoaded(compare.err);
        for (const QString &p : loaded)
            QVERIFY2(p.startsWith(lib), qPrintable(p + " is not the package's"));
    }

    // The window, offscreen, on a dump: saved as a picture once the dump is in; a folder that is
    // no dump gives exit 1 and says why.
    void theWindowOpensADump()
    {
        const QProcessEnvironment env = userEnvironment();
        const QString out = m_dir.filePath("window");
        const Ran dump = runProgram(m_bin + "/llmscope", {"dump", "--exec", sample(m_golden), "-o", out}, env);
        QVERIFY2(dump.code == 0, qPrintable(dump.err));
        const QString folder = out + "/" + QDir(out).entryList({"msit_dump_*"}).value(0);
        const QString shot = m_dir.filePath("window.png");
        const Ran window = runProgram(m_bin + "/llmscope", {"--screenshot", shot, folder}, env);
        QVERIFY2(window.code == 0, qPrintable(window.err));
        const QImage image(shot);
        QVERIFY(image.width() >= 600 && image.height() >= 400);
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size()))); // the heatmap's, the text's
        const Ran none = runProgram(m_bin + "/llmscope",
                                    {"--screenshot", m_dir.filePath("none.png"), m_dir.filePath("no-such")}, env);
        QCOMPARE(none.code, 1);
        QVERIFY2(none.err.contains(QLatin1String("cannot open")), qPrintable(none.err));
    }

    // The Python package for PyTorch goldens imports from where the package puts it.
    void thePythonPackageImports()
    {
        QProcessEnvironment env = userEnvironment();
        env.insert("PYTHONPATH", m_root + "/usr/lib/python3/dist-packages");
        env.insert("PYTHONDONTWRITEBYTECODE", "1");
        const Ran py = runProgram("/usr/bin/python3",
                                  {"-c", "import llmscope, llmscope.reference; print(llmscope.__file__)"}, env);
        QVERIFY2(py.code == 0, qPrintable(py.err));
        QVERIFY2(py.out.trimmed().startsWith(m_root + "/usr/lib/python3/dist-packages/llmscope/"), qPrintable(py.out));
    }
};

QTEST_GUILESS_MAIN(TstPackage)
#include "tst_package.moc"
