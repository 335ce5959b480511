#pragma once
// A raw HTTP/1.1 client for the server tests: it writes requests byte for byte and
// reads responses as they come (Content-Length, chunked or close-delimited), so that
// the tests see the framing itself. It waits by running the event loop, so a server on
// the same thread keeps working meanwhile.
#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QTcpSocket>
#include <optional>

namespace hearth::test {

struct HttpReply {
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;                              // de-chunked
    bool chunked = false;

    [[nodiscard]] QByteArray header(const QByteArray& name) const;
    [[nodiscard]] const QJsonObject json() const; // const: chained [] then reads, never inserts
    // The "data:" payloads of a server-sent event stream, in order.
    [[nodiscard]] QList<QByteArray> events() const;
};

class HttpTestClient {
public:
    explicit HttpTestClient(quint16 port);
    [[nodiscard]] bool connected() const { return socket_.state() == QAbstractSocket::ConnectedState; }

    void sendRaw(const QByteArray& bytes);
    // A request with a JSON (or any) body, kept alive unless `close`. Host (127.0.0.1:port) and
    // Content-Type (application/json, with a body or a POST) are sent unless `headers` name them.
    void send(const QByteArray& method, const QByteArray& path, const QByteArray& body = {},
              const QList<QPair<QByteArray, QByteArray>>& headers = {}, bool close = false);
    // The next whole response; nullopt if none came within the time.
    std::optional<HttpReply> read(int timeoutMs = 60000);
    // Waits until at least `bytes` bytes of the response being read have arrived.
    bool waitForBytes(qsizetype bytes, int timeoutMs = 60000);
    // Waits until the server closes the connection.
    bool waitForClose(int timeoutMs = 10000);
    void abort() { socket_.abort(); }
    [[nodiscard]] const QByteArray& received() const { return buffer_; }

private:
    bool pump(int timeoutMs, const std::function<bool()>& done);
    std::optional<HttpReply> parse(); // from buffer_, consuming it

    QTcpSocket socket_;
    QByteArray buffer_;
    quint16 port_;
};

// One request on a fresh connection.
std::optional<HttpReply> httpRequest(quint16 port, const QByteArray& method, const QByteArray& path,
                                     const QByteArray& body = {},
                                     const QList<QPair<QByteArray, QByteArray>>& headers = {});

} // namespace hearth::test
