#include "app/session/live_session.h"
#include "app/session/last_error_line.h"

#include <QTimer>

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>

#include <QCoroProcess>
#include <QCoroSignal>

#include <csignal>
#include <cstring>

#include <sys/socket.h>
#include <unistd.h>

#include "core/util/error.h"

using namespace llmscope;

namespace {

// The peer's user id, from the kernel; -1 when it cannot be told.
long peerUid(QLocalSocket *s)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(int(s->socketDescriptor()), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return -1;
    return long(cred.uid);
}

QString signalName(int sig)
{
    const char *d = ::strsignal(sig);
    return QStringLiteral("signal %1%2").arg(sig).arg(d ? QStringLiteral(", ") + QString::fromLocal8Bit(d) : QString());
}

} // namespace

LiveSession::LiveSession(QObject *parent) : QObject(parent)
{
    static const bool registered = [] {
        qRegisterMetaType<live::Hello>();
        qRegisterMetaType<live::Topology>();
        qRegisterMetaType<live::Round>();
        qRegisterMetaType<live::RoundStats>();
        qRegisterMetaType<live::Counters>();
        qRegisterMetaType<live::Ack>();
        return true;
    }();
    (void)registered;
    m_reader = std::make_unique<LiveReader>(this, [this](LiveReader::Batch b) { handleBatch(std::move(b)); });
}

LiveSession::~LiveSession()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill(); // the window is going away: nothing is left to show its output
        m_process->waitForFinished(2000);
    }
}

QString LiveSession::socketPath() const
{
    return m_server ? m_server->fullServerName() : QString();
}

QString LiveSession::stateName(State s)
{
    switch (s) {
    case State::Idle: return tr("idle");
    case State::Starting: return tr("starting");
    case State::Connected: return tr("connected");
    case State::Running: return tr("running");
    case State::Finished: return tr("finished");
    case State::Crashed: return tr("crashed");
    case State::Stopped: return tr("stopped");
    case State::FailedToStart: return tr("failed to start");
    }
    return {};
}

void LiveSession::setState(State s, const QString &message)
{
    m_state = s;
    emit stateChanged(s, message);
    if (!isRunning() && s != State::Idle)
        emit ended(s, message);
}

bool LiveSession::start(DumpOptions o, const LaunchSettings &settings, QString *error)
{
    if (isRunning()) {
        if (error)
            *error = tr("a program is already running in this session; stop it first");
        return false;
    }
    m_exitCode = -1;
    // A folder only this user can enter holds the socket; only peers of this uid are heard.
    m_socketDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/llmscope-live-XXXXXX"));
    if (!m_socketDir->isValid()) {
        if (error)
            *error = tr("cannot make a private folder for the live socket in %1: %2")
                         .arg(QDir::tempPath(), m_socketDir->errorString());
        return false;
    }
    QFile::setPermissions(m_socketDir->path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    delete m_server;
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(m_socketDir->filePath(QStringLiteral("live.sock")))) {
        if (error)
            *error = tr("cannot listen for the probe: %1").arg(m_server->errorString());
        return false;
    }
    connect(m_server, &QLocalServer::newConnection, this, &LiveSession::accept);
    o.liveSocket = m_server->fullServerName().toStdString();
    try {
        m_plan = planLaunch(o, settings);
    } catch (const Error &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_options = o;
    m_hello = {};
    m_stopping = false;
    if (m_socket) { // the last run's probe: gone, or going
        m_socket->disconnect(this);
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_process = new QProcess(this);
    m_process->setProgram(m_plan.program);
    m_process->setArguments(m_plan.arguments);
    m_process->setProcessEnvironment(m_plan.environment);
    if (!m_plan.workingDirectory.isEmpty())
        m_process->setWorkingDirectory(m_plan.workingDirectory);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { emit output(QString::fromLocal8Bit(m_process->readAllStandardOutput()), false); });
    m_errorTail.clear();
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QString text = QString::fromLocal8Bit(m_process->readAllStandardError());
        m_errorTail = (m_errorTail + text).right(4096);
        emit output(text, true);
    });
    connect(m_process, &QProcess::finished, this, &LiveSession::processFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            setState(State::FailedToStart, tr("cannot start %1: %2").arg(m_plan.program, m_process->errorString()));
    });
    setState(State::Starting, tr("starting %1").arg(m_plan.program));
    m_clock.start();
    m_process->start();
    watchConnection();
    if (m_options.timeoutSeconds > 0) { // --timeout, as llmscope dump honours it
        QPointer<QProcess> process(m_process);
        QTimer::singleShot(std::chrono::seconds(m_options.timeoutSeconds), this, [this, process] {
            if (!process || process != m_process || !isRunning())
                return; // that run has ended; a later one has its own timer
            emit warningReceived(tr("the program ran past --timeout %1 s; stopping it").arg(m_options.timeoutSeconds));
            stop();
        });
    }
    return true;
}

QCoro::Task<> LiveSession::watchConnection()
{
    QPointer<LiveSession> self(this);
    QPointer<QLocalServer> server(m_server);
    const auto waited = m_connectTimeout;
    const auto connected = co_await qCoro(server.data(), &QLocalServer::newConnection, waited);
    if (!self || !server || connected.has_value() || self->m_socket || !self->isRunning())
        co_return;
    emit self->noProbe(tr("No probe has talked to llmscope %1 s after the start. The program may link "
                          "llama.cpp statically (the probe can only interpose a shared libggml), may not be a "
                          "ggml program, or may not have computed its first graph yet. It keeps running; "
                          "Stop ends it.")
                           .arg(waited.count() / 1000));
}

void LiveSession::accept()
{
    while (QLocalSocket *s = m_server->nextPendingConnection()) {
        if (peerUid(s) != long(::getuid())) {
            s->abort();
            s->deleteLater();
            emit warningReceived(tr("refused a live connection from another user"));
            continue;
        }
        if (m_socket) { // a child process the program started, probed too (--children)
            s->write(QByteArray::fromStdString(live::encode(live::Refused{"the window follows one process"})));
            s->disconnectFromServer();
            connect(s, &QLocalSocket::disconnected, s, &QObject::deleteLater);
            continue;
        }
        m_socket = s;
        ++m_connection;
        s->setParent(this);
        connect(s, &QLocalSocket::readyRead, this, &LiveSession::readMessages);
        connect(s, &QLocalSocket::disconnected, this, [this] { readMessages(); });
    }
}

void LiveSession::readMessages()
{
    if (!m_socket)
        return;
    QByteArray bytes = m_socket->readAll();
    if (!bytes.isEmpty())
        m_reader->feed(m_connection, std::move(bytes));
}

void LiveSession::handleBatch(LiveReader::Batch batch)
{
    if (batch.connection != m_connection)
        return; // an earlier connection's
    for (auto &item : batch.items) {
        if (!m_socket)
            return; // refused
        if (item.message)
            handle(*item.message);
        else
            emit warningReceived(tr("ignored a message from the probe: %1").arg(item.error));
    }
    if (batch.tooLong && m_socket) {
        emit warningReceived(tr("the probe sent a message too long to read; no longer listening to it"));
        m_socket->abort();
    }
}

void LiveSession::handle(const live::Message &m)
{
    if (const auto *h = std::get_if<live::Hello>(&m)) {
        if (h->version != live::kProtocolVersion) {
            const QString why = tr("the probe speaks live protocol %1 and this window %2: use the probe built with "
                                   "this llmscope (the dump goes on without the window)")
                                    .arg(h->version)
                                    .arg(live::kProtocolVersion);
            m_socket->write(QByteArray::fromStdString(live::encode(live::Refused{why.toStdString()})));
            m_socket->flush();
            m_socket->disconnectFromServer();
            m_socket = nullptr;
            emit warningReceived(why);
            return;
        }
        m_hello = *h;
        // A fast program can end before its probe's connection is accepted: what it said is
        // still shown, but an ended session stays ended.
        if (m_state == State::Starting)
            setState(State::Connected, tr("the probe in process %1 is connected").arg(h->pid));
        emit helloReceived(*h);
    } else if (const auto *t = std::get_if<live::Topology>(&m)) {
        emit topologyReceived(*t);
    } else if (const auto *r = std::get_if<live::Round>(&m)) {
        if (m_state == State::Connected)
            setState(State::Running);
        emit roundReceived(*r);
    } else if (const auto *s = std::get_if<live::RoundStats>(&m)) {
        emit statsReceived(*s);
    } else if (const auto *c = std::get_if<live::Counters>(&m)) {
        emit countersReceived(*c);
    } else if (const auto *w = std::get_if<live::Warning>(&m)) {
        emit warningReceived(QString::fromStdString(w->text));
    } else if (const auto *a = std::get_if<live::Ack>(&m)) {
        emit acknowledged(*a);
    }
}

uint64_t LiveSession::select(const Selection &selection)
{
    if (!m_socket || m_socket->state() != QLocalSocket::ConnectedState)
        return 0;
    const uint64_t seq = ++m_seq;
    m_socket->write(QByteArray::fromStdString(live::encode(live::selectFrom(selection, seq))));
    return seq;
}

QCoro::Task<> LiveSession::stop(std::chrono::milliseconds grace)
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        co_return;
    QPointer<LiveSession> self(this);
    QPointer<QProcess> process(m_process);
    m_stopping = true;
    process->terminate();
    const bool ended = co_await qCoro(process.data()).waitForFinished(grace);
    if (!ended && process && process->state() != QProcess::NotRunning) {
        if (self)
            emit self->warningReceived(tr("the program did not end %1 s after it was asked to; killing it")
                                           .arg(double(grace.count()) / 1000.0));
        process->kill();
    }
}

void LiveSession::processFinished(int code, QProcess::ExitStatus status)
{
    // A program that ends fast may have connected without the event loop having accepted it
    // yet: its probe did talk, and what it said is in the socket already.
    if (m_server)
        m_server->waitForNewConnection(0); // one still in the kernel's backlog, too
    accept();
    if (m_socket)
        m_socket->waitForReadyRead(0); // what has arrived, without waiting for more
    readMessages(); // the goodbye and what came before it
    const double seconds = double(m_clock.elapsed()) / 1000.0;
    const bool stopping = m_stopping;
    // Said once the reader has handed over every message the run sent (its hello among them).
    m_reader->after([this, code, status, seconds, stopping] {
        m_exitCode = status == QProcess::NormalExit ? code : -1;
        const bool probed = !m_hello.engine.empty() || m_hello.pid;
        // A program that failed says why last on its stderr ("cannot load model ..."): that first,
        // before any guess at why no probe talked.
        const bool failed = status == QProcess::NormalExit && code != 0;
        const QString lastWords = failed ? lastErrorLine(m_errorTail.split(QLatin1Char('\n'))) : QString();
        QString noProbeNote;
        if (!lastWords.isEmpty())
            noProbeNote = tr(": \"%1\" (its last error line)").arg(lastWords) +
                (probed ? QString() : tr(". No probe talked to llmscope before it ended."));
        else if (!probed)
            noProbeNote =
                tr(" No probe talked to llmscope: the program may link llama.cpp statically (the probe can only "
                   "interpose a shared libggml), may not be a ggml program, or ended before its first graph.");
        if (stopping)
            setState(State::Stopped, tr("stopped after %1 s").arg(seconds, 0, 'f', 1));
        else if (status == QProcess::CrashExit)
            setState(State::Crashed,
                     tr("the program crashed after %1 s (%2); the dump keeps every file written before it")
                             .arg(seconds, 0, 'f', 1)
                             .arg(signalName(code)) +
                         noProbeNote);
        else
            setState(State::Finished,
                     tr("the program exited with status %1 after %2 s").arg(code).arg(seconds, 0, 'f', 1) +
                         noProbeNote);
    });
}
