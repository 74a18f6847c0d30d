// Runs the sample targets and parses their output, for the real-engine suites.
#pragma once
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStringList>

#include <vector>

namespace engine {

struct Generation {
    int exitCode = -1;
    QString stderrText;
    QString device; // the sample's 'device:' line: "Vulkan0 (llvmpipe ...), CPU"
    std::vector<int> promptTokens, tokens;
    std::vector<double> logits;
    std::vector<double> evalAsks; // --count-nodes: nodes ggml offered the application's callback
    std::vector<double> tokenMs; // --token-times: each generated token's decode
};

inline std::vector<double> numbersAfter(const QString &out, const QString &label)
{
    std::vector<double> v;
    for (const QString &line : out.split('\n'))
        if (line.startsWith(label + ":"))
            for (const QString &w : line.mid(label.size() + 1).split(' ', Qt::SkipEmptyParts))
                v.push_back(w.toDouble());
    return v;
}

inline Generation run(const QString &program, const QStringList &args,
                      const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    Generation g;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        g.stderrText = "timed out";
        return g;
    }
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    g.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    g.stderrText = QString::fromUtf8(p.readAllStandardError());
    for (const QString &line : out.split('\n'))
        if (line.startsWith("device: "))
            g.device = line.mid(8);
    for (double d : numbersAfter(out, "prompt_tokens"))
        g.promptTokens.push_back(int(d));
    for (double d : numbersAfter(out, "tokens"))
        g.tokens.push_back(int(d));
    g.logits = numbersAfter(out, "logits");
    g.evalAsks = numbersAfter(out, "eval_asks");
    g.tokenMs = numbersAfter(out, "token_ms");
    return g;
}

// Runs llmscope-make-model from binDir with args; true when it succeeded.
inline bool makeModel(const QString &binDir, const QStringList &args)
{
    QProcess p;
    p.start(binDir + "/llmscope-make-model", args);
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// Runs binDir/llmscope with args (five minutes at most): its exit code (-1 when it crashed or
// timed out) and what it said on stderr and stdout.
struct LlmscopeRun {
    int code = -1;
    QString err, out;
};
inline LlmscopeRun llmscope(const QString &binDir, const QStringList &args)
{
    QProcess p;
    p.start(binDir + "/llmscope", args);
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return {-1, "timed out", {}};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

// The JSON report llmscope compare wrote into dir; empty when there is not exactly one.
inline QJsonObject compareReport(const QString &dir)
{
    const QStringList files = QDir(dir).entryList({"msit_cmp_report_*.json"});
    if (files.size() != 1)
        return {};
    QFile f(dir + "/" + files[0]);
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

// The conclusion of `llmscope hunt` from its stderr: the last line it said as a conclusion
// ("llmscope hunt: found: ...", prefix dropped) and the indented lines under it, up to the
// replay's line. Step 2's line names the suspect too: tests pin the conclusion, not a label
// found anywhere. Empty when there is none.
inline QStringList huntConclusion(const QString &err)
{
    const QStringList l = err.split('\n', Qt::SkipEmptyParts);
    qsizetype at = l.size() - 1;
    while (at >= 0 && !l[at].startsWith(QLatin1String("llmscope hunt: ")))
        --at;
    if (at < 0)
        return {};
    QStringList c{l[at].mid(15)};
    for (qsizetype i = at + 1;
         i < l.size() && l[i].startsWith(QLatin1String("  ")) && !l[i].startsWith(QLatin1String("  replay: ")) &&
         !l[i].startsWith(QLatin1String("  dumps and reports kept in "));
         ++i)
        c << l[i].trimmed();
    return c;
}

// Whether text says the first divergent op's error comes in through weight, its error said as
// measured or as statistics know it ("about", "at least").
inline bool blamesWeight(const QString &text, const QString &weight)
{
    return QRegularExpression(
               "(^|\n) *the weight " + QRegularExpression::escape(weight) +
               R"( differs between golden and test \(relative error [^)]+ %\): the op's error comes in through it($|\n))")
        .match(text)
        .hasMatch();
}

// Whether the hunt's conclusion starts as the regular expression pattern says.
inline bool concludes(const QString &err, const QString &pattern)
{
    return QRegularExpression("^(" + pattern + ")").match(huntConclusion(err).value(0)).hasMatch();
}

#ifdef LLMSCOPE_ZOO_DIR
// scripts/kernel_zoo's folder: LLMSCOPE_ZOO (scripts/test exports it), else the build's default.
inline QString zooDir()
{
    const QString env = qEnvironmentVariable("LLMSCOPE_ZOO");
    return env.isEmpty() ? QString(LLMSCOPE_ZOO_DIR) : env;
}
// The folder of the zoo's CPU backends of one flavour (LLMSCOPE_ZOO_FLAVOUR: "native", the
// default, built with -march=native; "avx2", built for AVX2, FMA and F16C only), each backend
// in a folder of its name ("stock" or a fault), with simd.txt saying what the code steps by.
inline QString zooLibs()
{
    const QString flavour = qEnvironmentVariable("LLMSCOPE_ZOO_FLAVOUR", "native");
    return zooDir() + (flavour == "native" ? "/lib" : "/lib-" + flavour);
}
#endif

} // namespace engine
