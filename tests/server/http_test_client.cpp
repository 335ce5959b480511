#include "tests/server/http_test_client.h"
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QTimer>
#include <functional>

namespace hearth::test {

QByteArray HttpReply::header(const QByteArray& name) const {
    for (const auto& [key, value] : headers)
        if (key == name) return value;
    return {};
}

const QJsonObject HttpReply::json() const {
    return QJsonDocument::fromJson(body).object();
}

QList<QByteArray> HttpReply::events() const {
    QList<QByteArray> events;
    for (const QByteArray& block : body.split('\n'))
        if (block.startsWith("data: ")) events.append(block.mid(6));
    return events;
}

HttpTestClient::HttpTestClient(quint16 port) : port_(port) {
    socket_.connectToHost(QStringLiteral("127.0.0.1"), port);
    // Until connected, or refused (a server may close at once).
    pump(5000, [this] {
        return socket_.state() == QAbstractSocket::ConnectedState ||
               socket_.state() == QAbstractSocket::UnconnectedState;
    });
}

void HttpTestClient::sendRaw(const QByteArray& bytes) {
    socket_.write(bytes);
    socket_.flush();
}

void HttpTestClient::send(const QByteArray& method, const QByteArray& path, const QByteArray& body,
                          const QList<QPair<QByteArray, QByteArray>>& headers, bool close) {
    // Host and Content-Type have defaults that `headers` may replace.
    const auto given = [&headers](const QByteArray& name) {
        for (const auto& header : headers)
            if (header.first.toLower() == name) return true;
        return false;
    };
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\n";
    if (!given("host")) request += "Host: 127.0.0.1:" + QByteArray::number(port_) + "\r\n";
    for (const auto& [name, value] : headers)
        request += name + ": " + value + "\r\n";
    if (!body.isEmpty() || method == "POST") {
        if (!given("content-type")) request += "Content-Type: application/json\r\n";
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    }
    if (close) request += "Connection: close\r\n";
    request += "\r\n" + body;
    sendRaw(request);
}

bool HttpTestClient::pump(int timeoutMs, const std::function<bool()>& done) {
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QEventLoop loop;
        QTimer::singleShot(10, &loop, &QEventLoop::quit);
        loop.exec();
        buffer_ += socket_.readAll();
    }
    return true;
}

bool HttpTestClient::waitForBytes(qsizetype bytes, int timeoutMs) {
    return pump(timeoutMs, [&] { return buffer_.size() >= bytes; });
}

bool HttpTestClient::waitForClose(int timeoutMs) {
    return pump(timeoutMs, [&] { return socket_.state() == QAbstractSocket::UnconnectedState; });
}

std::optional<HttpReply> HttpTestClient::read(int timeoutMs) {
    std::optional<HttpReply> reply;
    // A connection the server closed without (the rest of) an answer ends the wait.
    pump(timeoutMs, [&] {
        reply = parse();
        return reply.has_value() || socket_.state() == QAbstractSocket::UnconnectedState;
    });
    return reply ? reply : parse();
}

std::optional<HttpReply> HttpTestClient::parse() {
    const qsizetype headEnd = buffer_.indexOf("\r\n\r\n");
    if (headEnd < 0) return std::nullopt;
    HttpReply reply;
    const QList<QByteArray> lines = buffer_.left(headEnd).split('\n');
    const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
    if (statusLine.size() < 2) return std::nullopt;
    reply.status = statusLine[1].toInt();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            reply.headers.append(
                {lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed()});
    }
    if (reply.status == 100) { // an interim answer: skip it
        buffer_.remove(0, headEnd + 4);
        return parse();
    }
    qsizetype at = headEnd + 4;
    if (reply.status == 204) { // no body
    } else if (reply.header("transfer-encoding") == "chunked") {
        reply.chunked = true;
        while (true) {
            const qsizetype lineEnd = buffer_.indexOf("\r\n", at);
            if (lineEnd < 0) return std::nullopt;
            bool ok = false;
            const qsizetype size = buffer_.mid(at, lineEnd - at).toLongLong(&ok, 16);
            if (!ok) return std::nullopt;
            if (buffer_.size() < lineEnd + 2 + size + 2) return std::nullopt;
            reply.body += buffer_.mid(lineEnd + 2, size);
            at = lineEnd + 2 + size + 2;
            if (size == 0) break;
        }
    } else if (const QByteArray length = reply.header("content-length"); !length.isEmpty()) {
        if (buffer_.size() < at + length.toLongLong()) return std::nullopt;
        reply.body = buffer_.mid(at, length.toLongLong());
        at += length.toLongLong();
    } else { // ends when the connection does
        if (socket_.state() != QAbstractSocket::UnconnectedState) return std::nullopt;
        reply.body = buffer_.mid(at);
        at = buffer_.size();
    }
    buffer_.remove(0, at);
    return reply;
}

std::optional<HttpReply> httpRequest(quint16 port, const QByteArray& method, const QByteArray& path,
                                     const QByteArray& body,
                                     const QList<QPair<QByteArray, QByteArray>>& headers) {
    HttpTestClient client(port);
    if (!client.connected()) return std::nullopt;
    client.send(method, path, body, headers, true);
    return client.read();
}

} // namespace hearth::test
