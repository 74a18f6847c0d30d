// The program running under the probe, as the window's job: it starts and stops the live
// session, writes what the program streams into the document (its operations, every round's
// statistics and, at most ten times a second, each op's newest for the op tree; its state,
// process and counters), and sends the -ids the user applies, saying when the program has
// taken them. It calls no other controller: when a run ends, ended() says where its dump is,
// and the workspace has it scanned.
#pragma once
#include <QObject>

#include <functional>
#include <map>

#include "app/session/launch_plan.h"
#include "app/session/live_session.h"
#include "core/live/live_protocol.h"
#include "core/select/selection.h"
#include "document/console_tone.h"

class SessionDocument;

class LiveController : public QObject {
    Q_OBJECT
public:
    explicit LiveController(SessionDocument *doc, QObject *parent = nullptr);

    LiveSession *session() const { return m_session; }
    bool isRunning() const { return m_session->isRunning(); }
    // Starts the program, the document's source already begun for it; false and error says why.
    bool start(const llmscope::DumpOptions &options, const LaunchSettings &settings, QString *error);
    void stop();
    // A new source: selections sent and not yet acknowledged belong to the old one.
    void forget();

    // Sends -ids text to the program; selectionStatus says what became of it.
    void applySelection(const QString &idsText);
    bool canApply() const;
    // The latest selection status, worded again now (in the language installed since).
    QString selectionStatusText() const;
    // Whether the window offers to run the ended program again with the picked ids (a launch's
    // does, a hunt's run does not): what the status tells a user to do after the end follows it.
    void setRunAgainOffered(std::function<bool()> offered) { m_runAgainOffered = std::move(offered); }

signals:
    void said(const QString &text, ConsoleTone tone);
    void status(const QString &text, int timeoutMs);
    void selectionStatus(const QString &text); // for the op panel
    void selectionApplied(const llmscope::Selection &selection, const QString &idsText, qint64 fromRound);
    void stateChanged(); // running or not, can apply
    // The run ended (it had started), its dump in root: what it wrote is there to read.
    void ended(const QString &root);

private:
    void say(const QString &text, ConsoleTone tone = ConsoleTone::Info);
    void tellSelection(std::function<QString()> words); // kept to be worded again, and said
    void sessionState(LiveSession::State s, const QString &message);
    void topologyReceived(const llmscope::live::Topology &t);
    void acknowledged(const llmscope::live::Ack &ack);
    void setProgramState(LiveSession::State state, const QString &message);

    SessionDocument *m_doc;
    LiveSession *m_session;
    std::map<uint64_t, std::pair<llmscope::Selection, QString>> m_pending; // sent, not yet acknowledged
    std::function<QString()> m_selectionWords;
    std::function<bool()> m_runAgainOffered;
};
