#pragma once
// Hearth's OpenAI-compatible API: GET /v1/models, POST /v1/chat/completions and
// POST /v1/completions (streamed as server-sent events or not), over HttpConnection
// on a QTcpServer. It lives on one thread (the app's GUI thread, or hearth-cli's main
// thread) and only parses and writes there; completions run on the backend's thread,
// one at a time, in the order they came. A client that goes away cancels its
// completion. Every request passes the front door first (Host, Origin, Content-Type:
// front_door.h); with an API key set, every request needs "Authorization: Bearer KEY".
#include "app/server/api_session_keys.h"
#include "app/server/completion_backend.h"
#include "app/server/front_door.h"
#include "app/server/http_connection.h"
#include "app/server/openai_protocol.h"
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <optional>

namespace hearth::server {

// What the loaded model's preset sets for API requests: fields a request leaves out take these
// (OpenAI's own defaults otherwise), and its chat template replaces the model's.
struct ApiModelDefaults {
    std::optional<double> temperature;
    std::optional<double> topP;
    std::optional<int> topK;
    std::optional<double> minP;
    std::optional<double> repeatPenalty;
    QString chatTemplate;
};

class ApiServer : public QObject {
    Q_OBJECT
public:
    // The backend must outlive the server.
    explicit ApiServer(CompletionBackend* backend, QObject* parent = nullptr);
    ~ApiServer() override; // closes

    // Listens on host:port (0: any free port); false with errorString() in plain words.
    bool listen(const QHostAddress& host, quint16 port);
    // Stops listening, drops every connection and cancels the completions in flight.
    void close();
    [[nodiscard]] bool isListening() const { return tcp_.isListening(); }
    [[nodiscard]] quint16 port() const { return tcp_.serverPort(); }
    [[nodiscard]] QString url() const; // "http://127.0.0.1:8080"
    [[nodiscard]] const QString& errorString() const { return error_; }

    void setApiKey(const QString& key) { apiKey_ = key.toUtf8(); } // empty: no key needed
    // Web pages (origins) and host names allowed besides loopback: see FrontDoor. Apply to the
    // next request.
    void setAllowedOrigins(const QStringList& origins) { frontDoor_.setAllowedOrigins(origins); }
    void setAllowedHosts(const QStringList& hosts) { frontDoor_.setAllowedHosts(hosts); }
    // Speculative decoding for every request from now on (the server-wide setting; a request
    // under a grammar decodes plainly). Off by default.
    void setSpeculation(const engine::SpeculationOptions& speculation) { speculation_ = speculation; }
    [[nodiscard]] const engine::SpeculationOptions& speculation() const { return speculation_; }
    // The loaded model's preset, for every request from now on.
    void setModelDefaults(const ApiModelDefaults& defaults) { modelDefaults_ = defaults; }
    void setLimits(HttpLimits limits) { limits_ = limits; }
    void setTimeouts(HttpTimeouts timeouts) { timeouts_ = timeouts; }
    [[nodiscard]] int completionsServed() const { return served_; }
    [[nodiscard]] int completionsInFlight() const { return static_cast<int>(exchanges_.size()); }

signals:
    // A completion was answered in full (not cancelled, not failed).
    void completionServed(const hearth::server::CompletionResult& result);

private:
    struct Exchange {
        QPointer<HttpConnection> connection;
        Endpoint endpoint = Endpoint::ChatCompletions;
        bool stream = false;
        bool includeUsage = false;
        bool streamStarted = false;
        CompletionIdentity who;
        CompletionRequest request;
        QString text;          // everything sent or to send
        int toolCallsSent = 0; // calls streamed while the reply went on
    };

    void accept();
    void handle(HttpConnection* connection, const HttpRequest& request);
    void startCompletion(HttpConnection* connection, Endpoint endpoint, const HttpRequest& request);
    void startStream(Exchange& exchange);
    void onPiece(quint64 id, const QString& text);
    void onToolCall(quint64 id, int index, const ApiToolCall& call);
    // A call as OpenAI streams one: its id, type and name with arguments "", then its arguments.
    static void writeToolCall(Exchange& exchange, int index, const ApiToolCall& call);
    void onFinished(quint64 id, const CompletionResult& result);
    void onConnectionClosed(HttpConnection* connection);
    bool authorized(const HttpRequest& request, ApiError& error) const;
    static void sendError(HttpConnection* connection, const ApiError& error, const HttpHeaders& headers = {});
    static void sendJson(HttpConnection* connection, const QByteArray& json);

    CompletionBackend* backend_;
    QTcpServer tcp_;
    QByteArray apiKey_;
    FrontDoor frontDoor_;
    engine::SpeculationOptions speculation_;
    ApiModelDefaults modelDefaults_;
    HttpLimits limits_;
    HttpTimeouts timeouts_;
    QString sessionPrefix_;
    ApiSessionKeys sessions_;
    QString rawSessionId_; // the one session of /v1/completions
    QHash<quint64, Exchange> exchanges_;
    QList<QPointer<HttpConnection>> connections_;
    quint64 nextId_ = 1;
    int served_ = 0;
    qint64 created_ = 0; // when the server started: the models' "created"
    QString error_;
};

} // namespace hearth::server
