// Sockets on 127.0.0.1 for the suites that run servers from the kernel zoo (ggml-rpc-server,
// llama-server): a free port, a connection, and plain HTTP/1.1 requests to llama-server.
#pragma once
#include <QByteArray>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace loopback {

// A socket on 127.0.0.1:port, or -1.
inline int connectTo(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

// A port nothing listens on now, as the kernel hands out.
inline int freePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

// Sends an HTTP/1.1 request (the server closes the connection after its answer); the socket to
// read the answer from, or -1.
inline int request(int port, const QByteArray &method, const QByteArray &path, const QByteArray &json = {})
{
    const int fd = connectTo(port);
    if (fd < 0)
        return -1;
    QByteArray r = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!json.isEmpty())
        r += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(json.size()) + "\r\n";
    r += "\r\n" + json;
    for (qsizetype sent = 0; sent < r.size();) {
        const ssize_t n = send(fd, r.constData() + sent, size_t(r.size() - sent), MSG_NOSIGNAL);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        sent += n;
    }
    return fd;
}

// What the socket gives until `until` has arrived (empty: until the peer closes it); closes it
// only in the second case.
inline QByteArray read(int fd, const QByteArray &until = {})
{
    QByteArray got;
    char buf[65536];
    while (until.isEmpty() || !got.contains(until)) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        got.append(buf, n);
    }
    if (until.isEmpty())
        close(fd);
    return got;
}

} // namespace loopback
