#pragma once
// A real HTTP/1.1 server on 127.0.0.1 for the download tests: it serves one file at
// /files/NAME with Range support (206, 416), redirects /redirect/NAME there, answers
// fixed answers at the paths of `routes` (JSON for the search tests), 404 to anything
// else, records every request, and injects the faults a download
// meets on the internet. One request per connection (Connection: close).
#include <QByteArray>
#include <QList>
#include <QMap>
#include <QObject>
#include <QTcpServer>
#include <QUrl>

class QTcpSocket;

namespace hearth::test {

class LoopbackHttpServer : public QObject {
    Q_OBJECT

public:
    struct Faults {
        bool ignoreRange = false;       // answer a Range request with 200 and the whole file
        qint64 dropAtByte = -1;         // close the connection once the file up to here is sent...
        int drops = 1;                  // ...on this many requests
        qint64 extraAnnouncedBytes = 0; // announce a Content-Length this much larger than the body...
        int wrongLengths = 1;           // ...on this many requests
        qint64 announcedTotal = -1;     // claim the file has this many bytes (headers only)
        int chunkBytes = 0;             // a slow server: this many bytes...
        int chunkIntervalMsecs = 0;     // ...every this many milliseconds
    };
    // A fixed answer, whatever the query string.
    struct Route {
        Route() = default;
        Route(QByteArray body, int status = 200, QByteArray contentType = "application/json",
              QByteArray location = {})
            : body(std::move(body)), status(status), contentType(std::move(contentType)),
              location(std::move(location)) {}
        QByteArray body;
        int status = 200;
        QByteArray contentType = "application/json";
        QByteArray location; // sent as Location (with status 302, a redirect)
    };
    struct Request {
        QByteArray method;
        QByteArray path;  // with the query string
        QByteArray range; // the Range header, empty when none
        int status = 0;   // what the server answered
    };

    explicit LoopbackHttpServer(QByteArray content, QString fileName = QStringLiteral("model.gguf"),
                                QObject* parent = nullptr);

    // Listens on 127.0.0.1, on `port` or any free one; false when it cannot.
    bool listen(quint16 port = 0);
    // Stops accepting and drops every open connection (a server going away).
    void stop();
    [[nodiscard]] quint16 port() const { return port_; }
    [[nodiscard]] QUrl fileUrl() const;
    [[nodiscard]] QUrl redirectUrl() const;
    [[nodiscard]] QUrl urlOf(const QString& path) const;
    [[nodiscard]] const QByteArray& content() const { return content_; }

    Faults faults;
    QMap<QByteArray, Route> routes; // by path, without the query string
    QList<Request> requests;

private:
    void accept();
    void answer(QTcpSocket* socket, const QByteArray& head);
    void sendBody(QTcpSocket* socket, qint64 first, qint64 end);

    QByteArray content_;
    QString fileName_;
    QTcpServer server_;
    quint16 port_ = 0;
};

} // namespace hearth::test
