// The probe's side of the live channel (core/live/live_protocol.h): its own thread connects
// to the app's socket, sends what the program's threads queue and reads the app's
// selections. The program's threads only take a short lock to queue or take; they never wait
// for the socket. Topology, acknowledgements, warnings and the goodbye are never dropped;
// round messages are dropped oldest first when the app falls behind, and counters are
// coalesced to the latest. No listener, one that never reads, or one that goes away: the
// channel warns once and the program and its dump go on as without it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/live/live_protocol.h"

namespace llmscope::probe {

class LiveChannel {
public:
    using Warn = std::function<void(const std::string &)>;
    static constexpr size_t kMaxQueuedRounds = 256;

    LiveChannel(std::string socketPath, live::Hello hello, Warn warn);
    ~LiveChannel(); // sends what it can for a moment, then closes

    void send(live::Message m); // never dropped (topology, ack, warning)
    void sendRound(live::Message m); // Round, RoundStats: dropped oldest first when the app falls behind
    void sendCounters(const live::Counters &c); // coalesced: fields only grow
    // The latest selection the app sent, once; nothing when there is none new.
    std::optional<live::Select> takeSelect();
    bool hasSelect() const { return m_hasSelect.load(std::memory_order_relaxed); }
    // Queues the goodbye and waits up to `wait` for the queue to reach the app.
    void finish(bool finished, std::chrono::milliseconds wait);
    uint64_t dropped() const { return m_dropped.load(); }

private:
    void run();
    bool connectSocket();
    void close(const std::string &why); // the channel thread's: stop talking, warn once
    bool nextLine(std::string &out); // under m_mutex: the next message to send, encoded
    void wake(); // the channel thread, from poll
    void queued(std::unique_lock<std::mutex> &lock); // after queueing: unlocks, wakes when idle

    const std::string m_path;
    const live::Hello m_hello;
    const Warn m_warn;
    int m_fd = -1; // the channel thread's only
    int m_wakePipe[2] = {-1, -1};

    std::mutex m_mutex;
    std::condition_variable m_wake, m_flushed;
    std::deque<live::Message> m_critical;
    std::deque<live::Message> m_rounds;
    std::optional<live::Counters> m_counters;
    std::optional<live::Goodbye> m_goodbye; // sent after everything else
    live::Counters m_countersSent{};
    std::optional<live::Select> m_select;
    bool m_stop = false, m_closed = false, m_idle = true;
    std::atomic<bool> m_hasSelect{false};
    std::atomic<uint64_t> m_dropped{0};
    std::thread m_thread;
};

} // namespace llmscope::probe
