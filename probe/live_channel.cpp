#include "probe/live_channel.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace llmscope::probe {
namespace {
constexpr size_t kSendChunk = 256 << 10; // encoded messages handed to the socket at a time
} // namespace

LiveChannel::LiveChannel(std::string socketPath, live::Hello hello, Warn warn)
    : m_path(std::move(socketPath)), m_hello(std::move(hello)), m_warn(std::move(warn))
{
    if (::pipe2(m_wakePipe, O_NONBLOCK | O_CLOEXEC) != 0)
        m_wakePipe[0] = m_wakePipe[1] = -1;
    m_thread = std::thread([this] { run(); });
}

LiveChannel::~LiveChannel()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    wake();
    if (m_thread.joinable())
        m_thread.join();
    for (int fd : m_wakePipe)
        if (fd >= 0)
            ::close(fd);
}

void LiveChannel::wake()
{
    const char c = 1;
    if (m_wakePipe[1] >= 0) [[maybe_unused]]
        auto n = ::write(m_wakePipe[1], &c, 1); // full pipe: a wake is pending anyway
}

void LiveChannel::queued(std::unique_lock<std::mutex> &lock)
{
    const bool wasIdle = m_idle;
    m_idle = false;
    lock.unlock();
    if (wasIdle) // one wake-up for a burst of messages
        wake();
}

void LiveChannel::send(live::Message m)
{
    std::unique_lock lock(m_mutex);
    if (m_closed)
        return;
    m_critical.push_back(std::move(m));
    queued(lock);
}

void LiveChannel::sendRound(live::Message r)
{
    std::unique_lock lock(m_mutex);
    if (m_closed)
        return;
    if (m_rounds.size() >= kMaxQueuedRounds) {
        m_rounds.pop_front();
        m_dropped.fetch_add(1);
    }
    m_rounds.push_back(std::move(r));
    queued(lock);
}

void LiveChannel::sendCounters(const live::Counters &c)
{
    std::unique_lock lock(m_mutex);
    if (m_closed)
        return;
    live::Counters &k = m_counters ? *m_counters : m_counters.emplace(m_countersSent);
    auto grow = [](uint64_t &a, uint64_t b) { a = std::max(a, b); };
    grow(k.rounds, c.rounds);
    grow(k.roundsDumped, c.roundsDumped);
    grow(k.opsSeen, c.opsSeen);
    grow(k.opsSelected, c.opsSelected);
    grow(k.tensors, c.tensors);
    grow(k.bytes, c.bytes);
    grow(k.skipped, c.skipped);
    queued(lock);
}

std::optional<live::Select> LiveChannel::takeSelect()
{
    std::lock_guard lock(m_mutex);
    std::optional<live::Select> s;
    s.swap(m_select);
    m_hasSelect.store(false, std::memory_order_relaxed);
    return s;
}

void LiveChannel::finish(bool finished, std::chrono::milliseconds wait)
{
    std::unique_lock lock(m_mutex);
    if (!m_closed) {
        m_goodbye = live::Goodbye{finished};
        m_stop = true;
        m_idle = false;
        lock.unlock();
        wake();
        lock.lock();
        m_flushed.wait_for(lock, wait, [this] { return m_closed; });
    }
    const bool closed = m_closed;
    lock.unlock();
    // A closed channel's thread has returned or is returning: joined. One still waiting on an
    // app that never reads is left to the process's exit.
    if (m_thread.joinable()) {
        if (closed)
            m_thread.join();
        else
            m_thread.detach();
    }
}

bool LiveChannel::nextLine(std::string &out)
{
    if (!m_critical.empty()) {
        out += live::encode(m_critical.front());
        m_critical.pop_front();
        return true;
    }
    if (!m_rounds.empty()) {
        out += live::encode(m_rounds.front());
        m_rounds.pop_front();
        return true;
    }
    if (m_counters) {
        m_counters->dropped = m_dropped.load();
        out += live::encode(*m_counters);
        m_countersSent = *m_counters;
        m_counters.reset();
        return true;
    }
    if (m_goodbye) { // last: the app stops listening once it has heard it
        out += live::encode(*m_goodbye);
        m_goodbye.reset();
        return true;
    }
    return false;
}

bool LiveChannel::connectSocket()
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (m_path.size() >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return false;
    }
    std::memcpy(addr.sun_path, m_path.c_str(), m_path.size() + 1);
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        return false;
    if (::connect(m_fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
        const int e = errno;
        ::close(m_fd);
        m_fd = -1;
        errno = e;
        return false;
    }
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    return true;
}

void LiveChannel::close(const std::string &why)
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_critical.clear();
        m_rounds.clear();
        m_counters.reset();
        m_goodbye.reset();
    }
    m_flushed.notify_all();
    if (!why.empty() && m_warn) // outside the lock: the probe's warnings are also sent here
        m_warn(why);
}

void LiveChannel::run()
{
    if (!connectSocket()) {
        close("cannot reach the app's live socket " + m_path + " (" + std::strerror(errno) +
              "); dumping on without it");
        return;
    }
    std::string out = live::encode(m_hello), in;
    size_t sent = 0;
    char buf[64 << 10];
    // Once stopping, the loop ends as soon as everything (the goodbye included) is sent, before
    // it polls again: a peer that closes or fails after that point was told everything, and
    // one that does before it went away without hearing the end, which is worth a warning
    // whenever it is noticed, during the run or at the program's exit.
    for (;;) {
        if (sent == out.size()) {
            out.clear();
            sent = 0;
            std::lock_guard lock(m_mutex);
            while (out.size() < kSendChunk && nextLine(out)) {
            }
            m_idle = out.empty();
            if (m_idle && m_stop) // everything said, the goodbye included
                break;
        }
        pollfd fds[2] = {{m_fd, short(POLLIN | (out.size() > sent ? POLLOUT : 0)), 0}, {m_wakePipe[0], POLLIN, 0}};
        if (::poll(fds, m_wakePipe[0] >= 0 ? 2 : 1, out.size() > sent ? 1000 : 500) < 0 && errno != EINTR) {
            close(std::string("the live channel failed (") + std::strerror(errno) + "); dumping on without the app");
            return;
        }
        if (fds[1].revents & POLLIN)
            while (::read(m_wakePipe[0], buf, sizeof buf) > 0) {
            }
        if (fds[0].revents & POLLIN) {
            const ssize_t n = ::recv(m_fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0) {
                close("the app closed the live channel; dumping on without it");
                return;
            }
            if (n > 0) {
                in.append(buf, size_t(n));
                for (size_t nl; (nl = in.find('\n')) != std::string::npos;) {
                    const std::string line = in.substr(0, nl);
                    in.erase(0, nl + 1);
                    try {
                        const live::Message m = live::decode(line);
                        if (const auto *s = std::get_if<live::Select>(&m)) {
                            std::lock_guard lock(m_mutex);
                            m_select = *s; // a later one replaces one not yet applied
                            m_hasSelect.store(true, std::memory_order_relaxed);
                        } else if (const auto *r = std::get_if<live::Refused>(&m)) {
                            close("the app refused the live channel (" + r->reason + "); dumping on without it");
                            return;
                        }
                    } catch (const std::exception &e) {
                        if (m_warn)
                            m_warn(std::string("ignored a live message from the app: ") + e.what());
                    }
                }
                if (in.size() > live::kMaxLineBytes) {
                    close("the app sent a message too long to read; dumping on without it");
                    return;
                }
            }
        }
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
            close("the app went away; dumping on without it");
            return;
        }
        if (out.size() > sent) {
            const ssize_t n = ::send(m_fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                sent += size_t(n);
            } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                close(std::string("the app stopped listening (") + std::strerror(errno) + "); dumping on without it");
                return;
            }
        }
    }
    close("");
}

} // namespace llmscope::probe
