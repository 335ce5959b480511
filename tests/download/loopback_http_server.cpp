#include "tests/download/loopback_http_server.h"
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

namespace hearth::test {

namespace {

QByteArray statusLine(int status) {
    switch (status) {
    case 200:
        return "HTTP/1.1 200 OK\r\n";
    case 206:
        return "HTTP/1.1 206 Partial Content\r\n";
    case 302:
        return "HTTP/1.1 302 Found\r\n";
    case 416:
        return "HTTP/1.1 416 Range Not Satisfiable\r\n";
    case 429:
        return "HTTP/1.1 429 Too Many Requests\r\n";
    case 500:
        return "HTTP/1.1 500 Internal Server Error\r\n";
    default:
        return "HTTP/1.1 404 Not Found\r\n";
    }
}

// "bytes=N-" or "bytes=N-M": the first byte asked for, or -1 for anything else.
qint64 rangeStart(const QByteArray& range) {
    if (!range.startsWith("bytes=")) return -1;
    const QByteArray first = range.mid(6).split('-').value(0);
    bool ok = false;
    const qint64 start = first.toLongLong(&ok);
    return ok && start >= 0 ? start : -1;
}

} // namespace

LoopbackHttpServer::LoopbackHttpServer(QByteArray content, QString fileName, QObject* parent)
    : QObject(parent), content_(std::move(content)), fileName_(std::move(fileName)) {
    connect(&server_, &QTcpServer::newConnection, this, &LoopbackHttpServer::accept);
}

bool LoopbackHttpServer::listen(quint16 port) {
    if (!server_.listen(QHostAddress::LocalHost, port)) return false;
    port_ = server_.serverPort();
    return true;
}

void LoopbackHttpServer::stop() {
    server_.close();
    for (QTcpSocket* socket : findChildren<QTcpSocket*>())
        socket->abort();
}

QUrl LoopbackHttpServer::urlOf(const QString& path) const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port_).arg(path));
}
QUrl LoopbackHttpServer::fileUrl() const {
    return urlOf(QStringLiteral("/files/") + fileName_);
}
QUrl LoopbackHttpServer::redirectUrl() const {
    return urlOf(QStringLiteral("/redirect/") + fileName_);
}

void LoopbackHttpServer::accept() {
    while (QTcpSocket* socket = server_.nextPendingConnection()) {
        socket->setParent(this);
        auto* head = new QByteArray;
        connect(socket, &QObject::destroyed, [head] { delete head; });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, head] {
            if (head->endsWith("\r\n\r\n")) return; // already answered: one request per connection
            head->append(socket->readAll());
            const qsizetype end = head->indexOf("\r\n\r\n");
            if (end < 0) return;
            head->truncate(end + 4);
            answer(socket, *head);
        });
    }
}

void LoopbackHttpServer::answer(QTcpSocket* socket, const QByteArray& head) {
    const QList<QByteArray> lines = head.split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    Request request;
    request.method = requestLine.value(0);
    request.path = requestLine.value(1);
    for (const QByteArray& line : lines) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == "range")
            request.range = line.mid(colon + 1).trimmed();
    }

    const auto route = routes.constFind(request.path.split('?').value(0));
    if (route != routes.constEnd()) {
        request.status = route->status;
        requests.append(request);
        const QByteArray location =
            route->location.isEmpty() ? QByteArray() : "Location: " + route->location + "\r\n";
        socket->write(statusLine(request.status) + location + "Content-Type: " + route->contentType +
                      "\r\nContent-Length: " + QByteArray::number(route->body.size()) +
                      "\r\nConnection: close\r\n\r\n" + route->body);
        socket->disconnectFromHost();
        return;
    }

    const QByteArray filePath = "/files/" + fileName_.toUtf8();
    const QByteArray redirectPath = "/redirect/" + fileName_.toUtf8();
    const qint64 size = content_.size();
    const qint64 announcedSize = faults.announcedTotal >= 0 ? faults.announcedTotal : size;
    QByteArray headers;
    qint64 first = 0;
    qint64 end = 0; // one past the last byte of the body
    if (request.path == redirectPath) {
        request.status = 302;
        headers = "Location: " + filePath + "\r\nContent-Length: 0\r\n";
    } else if (request.path != filePath) {
        request.status = 404;
        headers = "Content-Length: 9\r\n";
    } else {
        const qint64 start = rangeStart(request.range);
        if (start >= 0 && !faults.ignoreRange) {
            if (start >= size) {
                request.status = 416;
                headers = "Content-Range: bytes */" + QByteArray::number(announcedSize) +
                          "\r\nContent-Length: 0\r\n";
            } else {
                request.status = 206;
                first = start;
                end = size;
                headers = "Content-Range: bytes " + QByteArray::number(first) + "-" +
                          QByteArray::number(size - 1) + "/" + QByteArray::number(announcedSize) + "\r\n";
            }
        } else {
            request.status = 200;
            end = size;
        }
        if (request.status != 416) {
            qint64 announced = faults.announcedTotal >= 0 ? faults.announcedTotal - first : end - first;
            if (faults.extraAnnouncedBytes > 0 && faults.wrongLengths > 0) {
                --faults.wrongLengths;
                announced += faults.extraAnnouncedBytes;
            }
            headers += "Content-Length: " + QByteArray::number(announced) + "\r\n";
            if (!faults.ignoreRange) headers += "Accept-Ranges: bytes\r\n";
        }
        if (faults.dropAtByte > first && faults.dropAtByte < end && faults.drops > 0) {
            --faults.drops;
            end = faults.dropAtByte;
        }
    }
    requests.append(request);
    socket->write(statusLine(request.status) + headers + "Content-Type: application/octet-stream\r\n" +
                  "Connection: close\r\n\r\n");
    if (request.status == 404) socket->write("not found");
    sendBody(socket, first, end);
}

void LoopbackHttpServer::sendBody(QTcpSocket* socket, qint64 first, qint64 end) {
    if (faults.chunkBytes <= 0) {
        if (end > first) socket->write(content_.constData() + first, end - first);
        socket->disconnectFromHost(); // after the buffered bytes are written
        return;
    }
    // A slow server: a chunk per tick until the body is out or the client has gone.
    auto* timer = new QTimer(socket);
    QPointer<QTcpSocket> alive(socket);
    auto next = std::make_shared<qint64>(first);
    connect(timer, &QTimer::timeout, socket, [this, alive, timer, next, end] {
        if (!alive || alive->state() != QAbstractSocket::ConnectedState) return timer->stop();
        const qint64 n = std::min<qint64>(faults.chunkBytes, end - *next);
        if (n > 0) alive->write(content_.constData() + *next, n);
        *next += n;
        if (*next >= end) {
            timer->stop();
            alive->disconnectFromHost();
        }
    });
    timer->start(faults.chunkIntervalMsecs);
}

} // namespace hearth::test
