#include "app/workspace/live_controller.h"

#include "core/onnx/onnx_export.h"
#include "core/util/error.h"
#include "document/rounds_words.h"
#include "document/session_document.h"

using namespace llmscope;

LiveController::LiveController(SessionDocument *doc, QObject *parent)
    : QObject(parent), m_doc(doc), m_session(new LiveSession(this))
{
    connect(m_session, &LiveSession::stateChanged, this, &LiveController::sessionState);
    connect(m_session, &LiveSession::acknowledged, this, &LiveController::acknowledged);
    connect(m_session, &LiveSession::helloReceived, this, [this](const live::Hello &h) {
        m_doc->editProgram([&h](SessionDocument::Program &p) { p.process = h; });
        say(tr("[llmscope] probe connected: process %1 (%2 on %3)")
                .arg(h.pid)
                .arg(QString::fromStdString(h.engine), QString::fromStdString(h.device)));
    });
    connect(m_session, &LiveSession::countersReceived, m_doc, [this](const live::Counters &c) {
        m_doc->editProgram([&c](SessionDocument::Program &p) { p.counters = c; });
    });
    connect(m_session, &LiveSession::roundReceived, m_doc, [this](const live::Round &r) {
        m_doc->editProgram([&r](SessionDocument::Program &p) { p.lastRound = r; });
    });
    connect(m_session, &LiveSession::topologyReceived, this, &LiveController::topologyReceived);
    connect(m_session, &LiveSession::statsReceived, this, [this](const live::RoundStats &s) {
        m_doc->addRounds({{}, {s}});
    });
    connect(m_session, &LiveSession::warningReceived, this,
            [this](const QString &w) { say(tr("[llmscope] warning: %1").arg(w), ConsoleTone::Warning); });
    connect(m_session, &LiveSession::noProbe, this, [this](const QString &why) {
        say(QStringLiteral("[llmscope] ") + why, ConsoleTone::Warning);
        tellSelection([why] { return why; });
    });
    connect(m_session, &LiveSession::output, this, [this](const QString &text, bool err) {
        emit said(text, err ? ConsoleTone::ErrorOutput : ConsoleTone::Output);
    });
}

void LiveController::tellSelection(std::function<QString()> words)
{
    m_selectionWords = std::move(words);
    emit selectionStatus(m_selectionWords());
}

QString LiveController::selectionStatusText() const
{
    return m_selectionWords ? m_selectionWords() : QString();
}

void LiveController::say(const QString &text, ConsoleTone tone)
{
    emit said(text, tone);
    emit status(text.section(QLatin1Char('\n'), 0, 0), 30000);
}

void LiveController::forget()
{
    m_pending.clear();
}

bool LiveController::start(const DumpOptions &options, const LaunchSettings &settings, QString *error)
{
    tellSelection([] { return tr("Waiting for the program's first graph..."); });
    if (!m_session->start(options, settings, error)) {
        tellSelection([] { return tr("The program could not start: nothing to select in (the console says why)."); });
        setProgramState(LiveSession::State::FailedToStart, *error);
        say(tr("[llmscope] cannot launch: %1").arg(*error), ConsoleTone::Failure);
        emit stateChanged();
        return false;
    }
    m_doc->setDumpRoot(m_session->dumpRoot());
    setProgramState(m_session->state(), m_doc->program().message); // with its folder
    say(tr("[llmscope] %1; dumping into %2")
            .arg(QString::fromStdString(joinCommandLine({options.environment, options.command})),
                 m_doc->source().dumpRoot));
    emit stateChanged();
    return true;
}

void LiveController::stop()
{
    if (!m_session->isRunning())
        return;
    say(tr("[llmscope] stopping the program"));
    m_session->stop();
}

void LiveController::sessionState(LiveSession::State s, const QString &message)
{
    setProgramState(s, message);
    if (!message.isEmpty())
        emit status(message, 15000);
    if (s == LiveSession::State::Finished || s == LiveSession::State::Crashed || s == LiveSession::State::Stopped ||
        s == LiveSession::State::FailedToStart) {
        // a run stopped on purpose, or one that exited well, is news; one that failed, a failure
        const bool wentWell =
            s == LiveSession::State::Stopped || (s == LiveSession::State::Finished && m_session->exitCode() == 0);
        say(QStringLiteral("[llmscope] ") + message, wentWell ? ConsoleTone::Info : ConsoleTone::Failure);
        m_pending.clear();
        if (s != LiveSession::State::FailedToStart) // what it dumped stays said; what a pick does now
            tellSelection([this] {
                return m_runAgainOffered && m_runAgainOffered()
                    ? tr("The program has ended. Check operations and press Run again with these to dump them "
                         "in a new run.")
                    : tr("The program has ended.");
            });
        const QString root = m_session->dumpRoot();
        std::vector<std::string> problems;
        if (s != LiveSession::State::FailedToStart && !root.isEmpty()) {
            if (const auto files = exportOnnxAfterRun(m_session->options().types, root.toStdString(), &problems)) {
                say(tr("[llmscope] onnx: %n file(s) of the topology under onnx/", nullptr, int(files->size())));
                for (const auto &p : problems)
                    say(QStringLiteral("[llmscope] ") + QString::fromStdString(p), ConsoleTone::Warning);
            }
            emit ended(root);
        }
    }
    emit stateChanged();
}

void LiveController::topologyReceived(const live::Topology &t)
{
    const bool first = m_doc->graph()->empty();
    m_doc->setGraph(OpGraph(t));
    if (!first)
        return;
    const QString ids = QString::fromStdString(m_session->options().ids),
                  rounds = QString::fromStdString(m_session->options().rounds);
    const int ops = int(t.ops.size());
    tellSelection([ids, rounds, ops] {
        return tr("%n operation(s) in the program's graph. It dumps %1 in %2 (the launch's -er); "
                  "check operations and Apply to dump them from its next round on.",
                  nullptr, ops)
            .arg(ids.isEmpty() ? tr("every operation") : tr("-ids %1").arg(ids), roundsWords(rounds));
    });
}

bool LiveController::canApply() const
{
    return m_session->isRunning() && m_session->state() != LiveSession::State::Starting;
}

void LiveController::applySelection(const QString &ids)
{
    if (!m_session->isRunning())
        return;
    Selection sel;
    try {
        const DumpOptions &o = m_session->options();
        sel.ids = OpIds::parse(ids.toStdString());
        sel.opNames = parseOpNames(o.opNames);
        sel.child = o.child;
        sel.time = DumpTime(o.time);
        sel.part = TensorPart(o.part);
        sel.rounds = Rounds::all(); // from the acknowledged round on
    } catch (const Error &e) {
        const QString why = QString::fromUtf8(e.what());
        tellSelection([why] { return tr("Cannot apply: %1").arg(why); });
        return;
    }
    const uint64_t seq = m_session->select(sel);
    if (!seq) {
        tellSelection(
            [] { return tr("No probe is connected yet: the selection is sent once the program's probe talks."); });
        return;
    }
    m_pending[seq] = {sel, ids};
    tellSelection([ids] {
        return tr("Sent -ids %1; waiting for the program's next graph...")
            .arg(ids.isEmpty() ? tr("(every operation)") : ids);
    });
}

void LiveController::acknowledged(const live::Ack &ack)
{
    const auto it = m_pending.find(ack.seq);
    if (it == m_pending.end())
        return;
    const auto sel = it->second.first;
    const QString ids = it->second.second; // a plain copy: lambdas capture it (not a structured binding)
    m_pending.erase(m_pending.begin(), std::next(it));
    if (!ack.error.empty()) {
        const QString why = QString::fromStdString(ack.error);
        tellSelection([why] { return tr("The program refused the selection: %1").arg(why); });
        return;
    }
    const QString what = ids.isEmpty() ? tr("every operation") : tr("-ids %1").arg(ids);
    const int64_t from = ack.fromRound;
    tellSelection([ids, from] {
        return tr("Dumping %1 from round %2 on (acknowledged by the program).")
            .arg(ids.isEmpty() ? tr("every operation") : tr("-ids %1").arg(ids))
            .arg(from);
    });
    say(tr("[llmscope] the program dumps %1 from round %2").arg(what).arg(ack.fromRound));
    emit selectionApplied(sel, ids, ack.fromRound);
}

void LiveController::setProgramState(LiveSession::State state, const QString &message)
{
    m_doc->editProgram([&](SessionDocument::Program &p) {
        p.state = [state] { return LiveSession::stateName(state); };
        p.message = message;
    });
}
