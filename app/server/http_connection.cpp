#include "app/server/http_connection.h"
#include "app/server/openai_protocol.h"
#include <QTcpSocket>

namespace hearth::server {

namespace {
// A client that stops reading a stream while generation goes on: past this much unsent
// data the connection is dropped (and so the generation cancelled).
constexpr qint64 kMaxUnsentBytes = 16 * 1024 * 1024;
} // namespace

HttpConnection::HttpConnection(QTcpSocket* socket, HttpLimits limits, HttpTimeouts timeouts, QObject* parent)
    : QObject(parent), socket_(socket), parser_(limits), limits_(limits), timeouts_(timeouts) {
    socket_->setParent(this);
    requestTimer_.setSingleShot(true);
    idleTimer_.setSingleShot(true);
    connect(&requestTimer_, &QTimer::timeout, this,
            [this] { rejectAndClose(408, QStringLiteral("The request was not received in time.")); });
    connect(&idleTimer_, &QTimer::timeout, this, &HttpConnection::closeConnection);
    connect(socket_, &QTcpSocket::readyRead, this, &HttpConnection::readIncoming);
    connect(socket_, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(socket_, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError ||
            socket_->state() != QAbstractSocket::ConnectedState)
            onDisconnected();
    });
    idleTimer_.start(timeouts_.idleMs);
    // Bytes may have arrived before the signals were connected.
    if (socket_->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &HttpConnection::readIncoming, Qt::QueuedConnection);
}

bool HttpConnection::connected() const {
    return !closing_ && socket_->state() == QAbstractSocket::ConnectedState;
}

void HttpConnection::readIncoming() {
    if (closing_) return;
    const QByteArray bytes = socket_->readAll();
    if (bytes.isEmpty()) return;
    idleTimer_.stop();
    if (!requestTimer_.isActive() && !busy_) requestTimer_.start(timeouts_.requestMs);
    // While a response is being written the next request is only buffered, within bounds.
    if (busy_ && parser_.bufferedBytes() + bytes.size() > limits_.maxHeaderBytes + limits_.maxBodyBytes) {
        abort();
        return;
    }
    parser_.feed(bytes);
    processBuffered();
}

void HttpConnection::processBuffered() {
    if (busy_ || closing_) return;
    const HttpRequestParser::State state = parser_.parse();
    if (state == HttpRequestParser::State::Error) {
        rejectAndClose(parser_.errorStatus(), parser_.errorMessage());
        return;
    }
    if (state == HttpRequestParser::State::NeedMore) {
        if (parser_.expectsContinue() && !continueSent_) {
            socket_->write("HTTP/1.1 100 Continue\r\n\r\n");
            continueSent_ = true;
        }
        if (!parser_.hasBufferedBytes() && !parser_.headComplete()) {
            requestTimer_.stop();
            idleTimer_.start(timeouts_.idleMs);
        }
        return;
    }
    requestTimer_.stop();
    continueSent_ = false;
    const HttpRequest request = parser_.take();
    busy_ = true;
    keepAlive_ = request.keepAlive();
    chunked_ = request.version == "HTTP/1.1";
    emit requestReceived(this, request);
}

void HttpConnection::sendHead(int status, const HttpHeaders& headers) {
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto& [name, value] : requestHeaders_)
        head += name + ": " + value + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += keepAlive_ ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    head += "\r\n";
    socket_->write(head);
}

void HttpConnection::respond(int status, const QByteArray& contentType, const QByteArray& body,
                             const HttpHeaders& extraHeaders) {
    if (!busy_ || streaming_ || closing_) return;
    HttpHeaders headers = extraHeaders;
    const bool noContent = status == 204;
    if (!noContent) {
        headers.append({"Content-Type", contentType});
        headers.append({"Content-Length", QByteArray::number(body.size())});
    }
    sendHead(status, headers);
    if (!noContent) socket_->write(body);
    finishResponse();
}

void HttpConnection::beginStream(int status, const QByteArray& contentType, const HttpHeaders& extraHeaders) {
    if (!busy_ || streaming_ || closing_) return;
    HttpHeaders headers = extraHeaders;
    headers.append({"Content-Type", contentType});
    headers.append({"Cache-Control", QByteArray("no-cache")});
    // HTTP/1.0 has no chunks: the stream's end is the connection's.
    if (chunked_)
        headers.append({"Transfer-Encoding", QByteArray("chunked")});
    else
        keepAlive_ = false;
    sendHead(status, headers);
    streaming_ = true;
}

void HttpConnection::write(const QByteArray& data) {
    if (!streaming_ || closing_ || data.isEmpty()) return;
    if (chunked_) {
        socket_->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
    } else {
        socket_->write(data);
    }
    if (socket_->bytesToWrite() > kMaxUnsentBytes) abort();
}

void HttpConnection::end() {
    if (!streaming_ || closing_) return;
    if (chunked_) socket_->write("0\r\n\r\n");
    streaming_ = false;
    finishResponse();
}

void HttpConnection::finishResponse() {
    busy_ = false;
    requestHeaders_.clear();
    if (!keepAlive_) {
        closeConnection();
        return;
    }
    idleTimer_.start(timeouts_.idleMs);
    // A pipelined request may already be waiting.
    if (parser_.hasBufferedBytes())
        QMetaObject::invokeMethod(this, &HttpConnection::processBuffered, Qt::QueuedConnection);
}

void HttpConnection::rejectAndClose(int status, const QString& message) {
    if (closing_) return;
    if (streaming_) {
        abort();
        return;
    }
    busy_ = true;
    keepAlive_ = false;
    requestHeaders_.clear();
    respond(status, "application/json",
            errorBody(ApiError{status, message, errorTypeFor(status), QString(), QString()}));
}

void HttpConnection::closeConnection() {
    if (closing_) return;
    closing_ = true;
    requestTimer_.stop();
    idleTimer_.stop();
    socket_->disconnectFromHost(); // after what is queued has been written
    if (socket_->state() == QAbstractSocket::UnconnectedState) {
        onDisconnected();
        return;
    }
    // A peer that never reads what is left must not keep the connection forever.
    QTimer::singleShot(5000, this, &HttpConnection::abort);
}

void HttpConnection::abort() {
    closing_ = true;
    requestTimer_.stop();
    idleTimer_.stop();
    socket_->abort();
    onDisconnected();
}

void HttpConnection::onDisconnected() {
    if (closedEmitted_) return;
    closedEmitted_ = true;
    closing_ = true;
    requestTimer_.stop();
    idleTimer_.stop();
    emit closed(this);
    deleteLater();
}

QByteArray HttpConnection::reasonPhrase(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 417:
        return "Expectation Failed";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Status";
    }
}

} // namespace hearth::server
