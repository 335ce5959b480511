#pragma once
// One client connection: reads requests one at a time (a pipelined one waits until
// the response before it is written), and writes a response either whole or as a
// stream (chunked on HTTP/1.1, ended by closing on HTTP/1.0). A request that
// stalls halfway, or an idle kept-alive connection, is closed after a timeout;
// malformed input is answered with its status and the connection closed.
#include "app/server/http_request_parser.h"
#include <QObject>
#include <QPointer>
#include <QTimer>

class QTcpSocket;

namespace hearth::server {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

struct HttpTimeouts {
    int requestMs = 30000; // to receive a whole request once it has begun
    int idleMs = 60000;    // a kept-alive connection with no request
};

class HttpConnection : public QObject {
    Q_OBJECT
public:
    // Takes the socket over (it becomes this object's child).
    HttpConnection(QTcpSocket* socket, HttpLimits limits, HttpTimeouts timeouts, QObject* parent = nullptr);

    // Headers every response to the current request carries (CORS), whichever it is.
    void setResponseHeaders(const HttpHeaders& headers) { requestHeaders_ = headers; }
    // Answers the current request. The body gets its Content-Length (204: no body, no length).
    void respond(int status, const QByteArray& contentType, const QByteArray& body,
                 const HttpHeaders& extraHeaders = {});
    // Starts a streamed answer to the current request; write() its parts, then end() it.
    void beginStream(int status, const QByteArray& contentType, const HttpHeaders& extraHeaders = {});
    void write(const QByteArray& data);
    void end();
    // Closes at once, dropping what is unsent (the server is going away).
    void abort();

    [[nodiscard]] bool streaming() const { return streaming_; }
    [[nodiscard]] bool connected() const;

    static QByteArray reasonPhrase(int status);

signals:
    void requestReceived(hearth::server::HttpConnection* connection,
                         const hearth::server::HttpRequest& request);
    // The peer went away or the connection was closed; the object is deleted later.
    void closed(hearth::server::HttpConnection* connection);

private:
    void readIncoming();
    void processBuffered();
    void sendHead(int status, const HttpHeaders& headers);
    void finishResponse();
    void rejectAndClose(int status, const QString& message);
    void closeConnection();
    void onDisconnected();

    QTcpSocket* socket_;
    HttpRequestParser parser_;
    HttpLimits limits_;
    HttpTimeouts timeouts_;
    HttpHeaders requestHeaders_; // for every response to the current request
    QTimer requestTimer_;        // a request begun but not finished
    QTimer idleTimer_;           // nothing asked on a kept-alive connection
    bool busy_ = false;          // a request is being answered
    bool keepAlive_ = true;
    bool chunked_ = false;
    bool streaming_ = false;
    bool continueSent_ = false;
    bool closing_ = false;
    bool closedEmitted_ = false;
};

} // namespace hearth::server
