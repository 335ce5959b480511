#pragma once
// An HTTP/1.x request read from a byte stream, hostile input in mind: the request
// line and headers are bounded in size and count, the body must have a
// Content-Length within a limit (no chunked request bodies), and anything malformed
// ends in an error status (400, 413, 431, 501, 505) instead of a guess.
#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace hearth::server {

struct HttpRequest {
    QByteArray method;                            // "GET", "POST", ...
    QByteArray path;                              // the target without its query string
    QByteArray version;                           // "HTTP/1.0" or "HTTP/1.1"
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased, values trimmed
    QByteArray body;

    // The first header of that (lower-case) name; empty when absent.
    [[nodiscard]] QByteArray header(const QByteArray& name) const;
    // HTTP/1.1 keeps the connection unless it says close; HTTP/1.0 only when it asks.
    [[nodiscard]] bool keepAlive() const;
};

struct HttpLimits {
    int maxHeaderBytes = 32 * 1024; // request line and headers together
    int maxHeaders = 100;
    qint64 maxBodyBytes = 32 * 1024 * 1024; // room for images as base64 data URLs (about 24 MB of files)
};

class HttpRequestParser {
public:
    enum class State { NeedMore, Complete, Error };

    explicit HttpRequestParser(HttpLimits limits = {}) : limits_(limits) {}

    // Appends bytes and parses as far as they go.
    State feed(const QByteArray& bytes);
    // Parses what is buffered (e.g. the next pipelined request after take()).
    State parse();
    // The complete request; the parser starts on the next one with the bytes left over.
    HttpRequest take();

    // After the head of a request that waits for "100 Continue" before sending its body.
    [[nodiscard]] bool expectsContinue() const { return headComplete_ && expectContinue_; }
    [[nodiscard]] bool headComplete() const { return headComplete_; }
    [[nodiscard]] bool hasBufferedBytes() const { return !buffer_.isEmpty(); }
    [[nodiscard]] qint64 bufferedBytes() const { return buffer_.size(); }
    [[nodiscard]] int errorStatus() const { return errorStatus_; }
    [[nodiscard]] const QString& errorMessage() const { return errorMessage_; }

private:
    State fail(int status, const QString& message);
    State parseHead(qsizetype headEnd);

    HttpLimits limits_;
    QByteArray buffer_;
    HttpRequest request_;
    bool headComplete_ = false;
    bool expectContinue_ = false;
    qint64 contentLength_ = 0;
    State state_ = State::NeedMore;
    int errorStatus_ = 0;
    QString errorMessage_;
};

} // namespace hearth::server
