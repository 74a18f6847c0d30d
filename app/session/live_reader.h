// The live channel's bytes decoded into messages on a thread of its own, so a burst of
// statistics never holds the GUI thread: the session hands it the bytes it read (feed) and
// gets the messages back in batches, on the session's thread, in the order they were sent.
// Threads: feed() and after() are called on the session's thread; decoding runs on the
// reader's; deliver runs on the session's. Each connection's partial line is the reader's
// alone (no lock: only its thread touches it).
#pragma once
#include <QByteArray>
#include <QObject>
#include <QString>
#include <QThread>

#include <functional>
#include <optional>
#include <vector>

#include "core/live/live_protocol.h"

class LiveReader {
public:
    struct Item {
        std::optional<llmscope::live::Message> message;
        QString error; // a line that could not be read
    };
    struct Batch {
        uint64_t connection = 0;
        std::vector<Item> items;
        bool tooLong = false; // a line longer than the protocol allows: stop listening
    };
    // deliver(batch) is called on receiver's thread for each fed piece of bytes.
    LiveReader(QObject *receiver, std::function<void(Batch)> deliver);
    ~LiveReader();

    // Bytes of connection (a new number drops the last connection's partial line).
    void feed(uint64_t connection, QByteArray bytes);
    // Runs then on the receiver's thread once every batch fed before has been delivered.
    void after(std::function<void()> then);

private:
    QThread m_thread;
    QObject *m_worker; // lives on m_thread
    QObject *m_receiver;
    std::function<void(Batch)> m_deliver;
    uint64_t m_connection = 0; // reader thread only
    QByteArray m_partial; // reader thread only
};
