#include "app/session/live_reader.h"

#include "core/util/error.h"

using namespace llmscope;

LiveReader::LiveReader(QObject *receiver, std::function<void(Batch)> deliver)
    : m_worker(new QObject), m_receiver(receiver), m_deliver(std::move(deliver))
{
    m_thread.setObjectName(QStringLiteral("llmscope live reader"));
    m_worker->moveToThread(&m_thread);
    m_thread.start();
}

LiveReader::~LiveReader()
{
    m_thread.quit();
    m_thread.wait(); // nothing of this reader runs after it is gone
    delete m_worker;
}

void LiveReader::feed(uint64_t connection, QByteArray bytes)
{
    QMetaObject::invokeMethod(m_worker, [this, connection, bytes = std::move(bytes)] {
        if (connection != m_connection) {
            m_connection = connection;
            m_partial.clear();
        }
        m_partial += bytes;
        Batch batch;
        batch.connection = connection;
        qsizetype from = 0;
        for (qsizetype nl; (nl = m_partial.indexOf('\n', from)) >= 0; from = nl + 1) {
            Item item;
            try {
                item.message = live::decode(m_partial.mid(from, nl - from).toStdString());
            } catch (const Error &e) {
                item.error = QString::fromUtf8(e.what());
            }
            batch.items.push_back(std::move(item));
        }
        m_partial.remove(0, from);
        if (size_t(m_partial.size()) > live::kMaxLineBytes) {
            batch.tooLong = true;
            m_partial.clear();
        }
        if (batch.items.empty() && !batch.tooLong)
            return;
        // The receiver outlives this call: its reader (and this thread) is destroyed with it,
        // and a call queued to a destroyed receiver is dropped.
        QMetaObject::invokeMethod(m_receiver,
                                  [this, batch = std::move(batch)]() mutable { m_deliver(std::move(batch)); });
    });
}

void LiveReader::after(std::function<void()> then)
{
    QMetaObject::invokeMethod(m_worker,
                              [this, then = std::move(then)] { QMetaObject::invokeMethod(m_receiver, then); });
}
