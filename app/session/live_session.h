// One program run under the probe with the window attached: launches it through the same
// plan as `llmscope dump`, listens on a private socket for the probe's live channel, and
// hands the views typed messages. Its own states, errors that say what to do, and Stop
// (terminate, then kill after a grace period). No widgets; every signal is emitted on the
// thread that owns the session (the GUI thread). The probe's messages are decoded on a reader
// thread (LiveReader): this thread only moves bytes and handles decoded batches; a run's end
// is said after every message it sent.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTemporaryDir>

#include <QCoroTask>

#include <chrono>
#include <memory>

#include "app/session/launch_plan.h"
#include "app/session/live_reader.h"
#include "core/live/live_protocol.h"

class QLocalServer;
class QLocalSocket;

class LiveSession : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Starting, Connected, Running, Finished, Crashed, Stopped, FailedToStart };
    Q_ENUM(State)

    explicit LiveSession(QObject *parent = nullptr);
    ~LiveSession() override;

    // Starts o.command under the probe, streaming to this session. False (and `error` says
    // why) when it cannot even start: bad options, a missing program, no disk space.
    bool start(llmscope::DumpOptions o, const LaunchSettings &settings, QString *error);
    // Terminates the program, and kills it if it has not ended after `grace`.
    QCoro::Task<> stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
    // Sends a new selection; returns its sequence number (0 when no probe is connected).
    uint64_t select(const llmscope::Selection &selection);

    State state() const { return m_state; }
    int exitCode() const { return m_exitCode; } // of the last run that ended normally; -1 otherwise
    bool isRunning() const
    {
        return m_state == State::Starting || m_state == State::Connected || m_state == State::Running;
    }
    QString dumpRoot() const { return m_plan.dumpRoot; }
    QString socketPath() const;
    const llmscope::DumpOptions &options() const { return m_options; }
    const llmscope::live::Hello &hello() const { return m_hello; }
    // How long to wait for the probe before saying it never connected.
    void setConnectTimeout(std::chrono::milliseconds t) { m_connectTimeout = t; }

    static QString stateName(State s);

signals:
    void stateChanged(LiveSession::State state, const QString &message);
    // Once per run, when it has ended (finished, crashed, stopped or failed to start).
    void ended(LiveSession::State state, const QString &message);
    void helloReceived(const llmscope::live::Hello &hello);
    void topologyReceived(const llmscope::live::Topology &topology);
    void roundReceived(const llmscope::live::Round &round);
    void statsReceived(const llmscope::live::RoundStats &stats);
    void countersReceived(const llmscope::live::Counters &counters);
    void warningReceived(const QString &text);
    void acknowledged(const llmscope::live::Ack &ack);
    void output(const QString &text, bool isError); // the program's own output, as it comes
    void noProbe(const QString &why); // the program runs, but no probe talked to us

private:
    QCoro::Task<> watchConnection(); // waits for the probe, or says why it may never come
    void setState(State s, const QString &message = {});
    void accept();
    void readMessages(); // the socket's bytes, to the reader
    void handleBatch(LiveReader::Batch batch);
    void handle(const llmscope::live::Message &m);
    void processFinished(int code, QProcess::ExitStatus status);

    llmscope::DumpOptions m_options;
    LaunchPlan m_plan;
    std::unique_ptr<QTemporaryDir> m_socketDir;
    QLocalServer *m_server = nullptr;
    QPointer<QLocalSocket> m_socket;
    QProcess *m_process = nullptr;
    State m_state = State::Idle;
    int m_exitCode = -1;
    QString m_errorTail; // the end of the program's stderr: its last words where it fails
    bool m_stopping = false;
    uint64_t m_seq = 0;
    llmscope::live::Hello m_hello;
    std::chrono::milliseconds m_connectTimeout{15000};
    QElapsedTimer m_clock;
    uint64_t m_connection = 0; // the accepted connection's number; the reader's batches of others are dropped
    std::unique_ptr<LiveReader> m_reader; // last: its thread ends before the rest goes
};

Q_DECLARE_METATYPE(llmscope::live::Hello)
Q_DECLARE_METATYPE(llmscope::live::Topology)
Q_DECLARE_METATYPE(llmscope::live::Round)
Q_DECLARE_METATYPE(llmscope::live::RoundStats)
Q_DECLARE_METATYPE(llmscope::live::Counters)
Q_DECLARE_METATYPE(llmscope::live::Ack)
