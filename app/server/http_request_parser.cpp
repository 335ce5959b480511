#include "app/server/http_request_parser.h"

namespace hearth::server {

namespace {
// RFC 9110 token characters, for methods and header names.
bool isToken(const QByteArray& text) {
    if (text.isEmpty()) return false;
    for (const char c : text) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
        if (!ok) return false;
    }
    return true;
}

bool hasControlCharacters(QByteArrayView text) {
    for (const char c : text)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return true;
    return false;
}
} // namespace

QByteArray HttpRequest::header(const QByteArray& name) const {
    for (const auto& [key, value] : headers)
        if (key == name) return value;
    return {};
}

bool HttpRequest::keepAlive() const {
    const QByteArray connection = header("connection").toLower();
    if (version == "HTTP/1.0") return connection.contains("keep-alive");
    return !connection.contains("close");
}

HttpRequestParser::State HttpRequestParser::fail(int status, const QString& message) {
    errorStatus_ = status;
    errorMessage_ = message;
    state_ = State::Error;
    return state_;
}

HttpRequestParser::State HttpRequestParser::feed(const QByteArray& bytes) {
    if (state_ == State::Error) return state_;
    buffer_.append(bytes);
    return parse();
}

HttpRequestParser::State HttpRequestParser::parse() {
    if (state_ != State::NeedMore) return state_;
    if (!headComplete_) {
        // Blank lines before a request are allowed (RFC 9112 2.2), and skipped.
        while (buffer_.startsWith("\r\n"))
            buffer_.remove(0, 2);
        const qsizetype headEnd = buffer_.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            if (buffer_.size() > limits_.maxHeaderBytes)
                return fail(431, QStringLiteral("The request's headers are too large."));
            return State::NeedMore;
        }
        if (headEnd + 4 > limits_.maxHeaderBytes)
            return fail(431, QStringLiteral("The request's headers are too large."));
        if (parseHead(headEnd) == State::Error) return state_;
        buffer_.remove(0, headEnd + 4);
    }
    if (buffer_.size() < contentLength_) return State::NeedMore;
    request_.body = buffer_.left(contentLength_);
    buffer_.remove(0, contentLength_);
    state_ = State::Complete;
    return state_;
}

HttpRequestParser::State HttpRequestParser::parseHead(qsizetype headEnd) {
    const QList<QByteArray> lines = buffer_.left(headEnd).split('\n');
    // Every line must end in CRLF: a bare LF is a framing ambiguity (request smuggling).
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        if (!lines[i].endsWith('\r')) return fail(400, QStringLiteral("Malformed request: bare line feed."));
    const QByteArray requestLine = lines.first().chopped(lines.size() > 1 ? 1 : 0);
    const QList<QByteArray> parts = requestLine.split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || hasControlCharacters(parts[1]))
        return fail(400, QStringLiteral("Malformed request line."));
    request_.method = parts[0];
    QByteArray target = parts[1];
    if (!target.startsWith('/')) return fail(400, QStringLiteral("The request target must be a path."));
    if (const qsizetype query = target.indexOf('?'); query >= 0) target.truncate(query);
    request_.path = target;
    request_.version = parts[2];
    if (request_.version != "HTTP/1.1" && request_.version != "HTTP/1.0")
        return fail(505, QStringLiteral("Only HTTP/1.0 and HTTP/1.1 are supported."));

    bool sawLength = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].endsWith('\r') ? lines[i].chopped(1) : lines[i];
        if (line.startsWith(' ') || line.startsWith('\t'))
            return fail(400, QStringLiteral("Folded header lines are not accepted."));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0) return fail(400, QStringLiteral("Malformed header line."));
        const QByteArray name = line.left(colon).toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (!isToken(name) || hasControlCharacters(value))
            return fail(400, QStringLiteral("Malformed header line."));
        if (request_.headers.size() >= limits_.maxHeaders)
            return fail(431, QStringLiteral("The request has too many headers."));
        request_.headers.append({name, value});
        if (name == "content-length") {
            bool ok = value.size() <= 18 && !value.isEmpty();
            for (const char c : value)
                ok = ok && c >= '0' && c <= '9';
            const qint64 length = ok ? value.toLongLong(&ok) : -1;
            if (!ok || (sawLength && length != contentLength_))
                return fail(400, QStringLiteral("Invalid Content-Length."));
            sawLength = true;
            contentLength_ = length;
        } else if (name == "transfer-encoding") {
            return fail(501,
                        QStringLiteral("Chunked request bodies are not supported: send a Content-Length."));
        } else if (name == "expect") {
            if (value.toLower() != "100-continue")
                return fail(417, QStringLiteral("Only \"Expect: 100-continue\" is understood."));
            expectContinue_ = true;
        }
    }
    if (contentLength_ > limits_.maxBodyBytes)
        return fail(413,
                    QStringLiteral("The request body is larger than %1 bytes.").arg(limits_.maxBodyBytes));
    headComplete_ = true;
    return State::NeedMore;
}

HttpRequest HttpRequestParser::take() {
    HttpRequest request = std::move(request_);
    request_ = {};
    headComplete_ = false;
    expectContinue_ = false;
    contentLength_ = 0;
    state_ = State::NeedMore;
    return request;
}

} // namespace hearth::server
