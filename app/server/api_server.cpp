#include "app/server/api_server.h"
#include "app/server/openai_tools.h"
#include <QDateTime>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QUrl>

namespace hearth::server {

namespace {
// Constant-time comparison: the key's bytes are not revealed by how long a refusal takes.
bool sameSecret(const QByteArray& a, const QByteArray& b) {
    unsigned char difference = a.size() == b.size() ? 0 : 1;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return difference == 0;
}

QString plainListenError(QAbstractSocket::SocketError error, quint16 port, const QString& fallback) {
    switch (error) {
    case QAbstractSocket::AddressInUseError:
        return QObject::tr("Port %1 is already in use by another program. Choose another port.").arg(port);
    case QAbstractSocket::SocketAccessError:
        return QObject::tr("Not allowed to listen on port %1 (ports below 1024 need administrator rights).")
            .arg(port);
    case QAbstractSocket::SocketAddressNotAvailableError:
        return QObject::tr("This computer has no such address to listen on.");
    default:
        return fallback;
    }
}

// Connections open at once; one request each is answered at a time, so this also bounds the
// completions queued.
constexpr qsizetype kMaxConnections = 64;

QByteArray sseEvent(const QByteArray& json) {
    return "data: " + json + "\n\n";
}
} // namespace

ApiServer::ApiServer(CompletionBackend* backend, QObject* parent)
    : QObject(parent), backend_(backend),
      // Random per server: ids never meet those of an earlier run (or the app's conversations).
      sessionPrefix_(
          QStringLiteral("api-%1-").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'))),
      sessions_(sessionPrefix_), rawSessionId_(sessionPrefix_ + QStringLiteral("raw")) {
    registerCompletionTypes();
    connect(&tcp_, &QTcpServer::newConnection, this, &ApiServer::accept);
    connect(backend_, &CompletionBackend::pieceReady, this, &ApiServer::onPiece);
    connect(backend_, &CompletionBackend::toolCallReady, this, &ApiServer::onToolCall);
    connect(backend_, &CompletionBackend::finished, this, &ApiServer::onFinished);
}

ApiServer::~ApiServer() {
    close();
}

bool ApiServer::listen(const QHostAddress& host, quint16 port) {
    close();
    error_.clear();
    if (!tcp_.listen(host, port)) {
        error_ = plainListenError(tcp_.serverError(), port, tcp_.errorString());
        return false;
    }
    frontDoor_.setListenAddress(tcp_.serverAddress());
    created_ = QDateTime::currentSecsSinceEpoch();
    return true;
}

void ApiServer::close() {
    tcp_.close();
    for (Exchange& exchange : exchanges_)
        exchange.request.cancel->store(true);
    exchanges_.clear();
    const auto connections = connections_;
    connections_.clear();
    for (const QPointer<HttpConnection>& connection : connections)
        if (connection) connection->abort();
}

QString ApiServer::url() const {
    if (!tcp_.isListening()) return {};
    const QHostAddress address = tcp_.serverAddress();
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + address.toString() + QLatin1Char(']')
                             : address.toString();
    return QStringLiteral("http://%1:%2").arg(host).arg(tcp_.serverPort());
}

void ApiServer::accept() {
    while (QTcpSocket* socket = tcp_.nextPendingConnection()) {
        if (connections_.size() >= kMaxConnections) { // each holds buffers: a flood is turned away
            socket->abort();
            socket->deleteLater();
            continue;
        }
        auto* connection = new HttpConnection(socket, limits_, timeouts_, this);
        connections_.append(connection);
        connect(connection, &HttpConnection::requestReceived, this, &ApiServer::handle);
        connect(connection, &HttpConnection::closed, this, &ApiServer::onConnectionClosed);
    }
}

void ApiServer::sendError(HttpConnection* connection, const ApiError& error, const HttpHeaders& headers) {
    connection->respond(error.status, "application/json", errorBody(error), headers);
}

void ApiServer::sendJson(HttpConnection* connection, const QByteArray& json) {
    connection->respond(200, "application/json", json);
}

bool ApiServer::authorized(const HttpRequest& request, ApiError& error) const {
    if (apiKey_.isEmpty()) return true;
    const QByteArray header = request.header("authorization");
    error = ApiError{401, QString(), QStringLiteral("invalid_request_error"), QString(),
                     QStringLiteral("invalid_api_key")};
    if (!header.startsWith("Bearer ")) {
        error.message = tr("You didn't provide an API key. Send it as \"Authorization: Bearer KEY\".");
        return false;
    }
    if (!sameSecret(header.mid(7).trimmed(), apiKey_)) {
        error.message = tr("Incorrect API key provided.");
        return false;
    }
    return true;
}

void ApiServer::handle(HttpConnection* connection, const HttpRequest& request) {
    const FrontDoorDecision entry = frontDoor_.screen(request);
    connection->setResponseHeaders(entry.headers);
    switch (entry.kind) {
    case FrontDoorDecision::Kind::Refuse:
        sendError(connection, entry.error);
        return;
    case FrontDoorDecision::Kind::Preflight: // before the key: browsers send none with it
        connection->respond(204, {}, {});
        return;
    case FrontDoorDecision::Kind::Admit:
        break;
    }
    ApiError error;
    if (!authorized(request, error)) {
        sendError(connection, error, {{"WWW-Authenticate", "Bearer"}});
        return;
    }
    QByteArray path = request.path;
    while (path.size() > 1 && path.endsWith('/'))
        path.chop(1);
    const auto wrongMethod = [&](const QByteArray& allowed) {
        sendError(connection,
                  ApiError{405,
                           tr("Method %1 is not allowed for %2 (use %3).")
                               .arg(QString::fromLatin1(request.method), QString::fromUtf8(path),
                                    QString::fromLatin1(allowed)),
                           QStringLiteral("invalid_request_error"), QString(),
                           QStringLiteral("method_not_allowed")},
                  {{"Allow", allowed}});
    };
    const bool get = request.method == "GET";
    if (path == "/v1/models") {
        if (!get) return wrongMethod("GET");
        sendJson(connection, modelListJson(backend_->modelId(), created_));
        return;
    }
    if (path.startsWith("/v1/models/")) {
        if (!get) return wrongMethod("GET");
        const QString wanted = QUrl::fromPercentEncoding(path.mid(11));
        if (wanted.isEmpty() || wanted != backend_->modelId()) {
            sendError(connection, ApiError{404, tr("The model '%1' does not exist.").arg(wanted),
                                           QStringLiteral("invalid_request_error"), QStringLiteral("model"),
                                           QStringLiteral("model_not_found")});
            return;
        }
        sendJson(connection, modelJson(wanted, created_));
        return;
    }
    if (path == "/v1/chat/completions" || path == "/v1/completions") {
        if (request.method != "POST") return wrongMethod("POST");
        startCompletion(connection,
                        path == "/v1/completions" ? Endpoint::Completions : Endpoint::ChatCompletions,
                        request);
        return;
    }
    sendError(connection,
              ApiError{404,
                       tr("Invalid URL (%1 %2).")
                           .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path)),
                       QStringLiteral("invalid_request_error"), QString(), QStringLiteral("unknown_url")});
}

void ApiServer::startCompletion(HttpConnection* connection, Endpoint endpoint, const HttpRequest& request) {
    auto parsed = parseRequest(endpoint, request.body);
    if (auto* error = std::get_if<ApiError>(&parsed)) {
        sendError(connection, *error);
        return;
    }
    ParsedRequest& ok = std::get<ParsedRequest>(parsed);
    const QString model = backend_->modelId();
    if (model.isEmpty()) {
        sendError(connection, ApiError{503, tr("No model is loaded in Hearth. Load one, then try again."),
                                       QStringLiteral("service_unavailable"), QString(),
                                       QStringLiteral("model_not_loaded")});
        return;
    }
    if (ok.model != model) {
        sendError(connection,
                  ApiError{404,
                           tr("The model '%1' does not exist; this server runs '%2'.").arg(ok.model, model),
                           QStringLiteral("invalid_request_error"), QStringLiteral("model"),
                           QStringLiteral("model_not_found")});
        return;
    }

    Exchange exchange;
    exchange.connection = connection;
    exchange.endpoint = endpoint;
    exchange.stream = ok.stream;
    exchange.includeUsage = ok.includeUsage;
    exchange.request = std::move(ok.completion);
    exchange.request.id = nextId_++;
    exchange.request.seed = ok.seed ? *ok.seed : QRandomGenerator::global()->generate64();
    exchange.request.cancel = engine::new_cancel_token();
    exchange.request.speculation = speculation_;
    CompletionRequest& completion = exchange.request;
    if (!ok.setsTemperature && modelDefaults_.temperature)
        completion.temperature = *modelDefaults_.temperature;
    if (!ok.setsTopP && modelDefaults_.topP) completion.topP = *modelDefaults_.topP;
    completion.topK = modelDefaults_.topK.value_or(completion.topK);
    completion.minP = modelDefaults_.minP.value_or(completion.minP);
    completion.repeatPenalty = modelDefaults_.repeatPenalty.value_or(completion.repeatPenalty);
    completion.chatTemplate = modelDefaults_.chatTemplate;
    if (exchange.request.rawPrompt) {
        // Raw prompts share one session: the chat session reuses whatever prefix of text it holds.
        exchange.request.sessionId = rawSessionId_;
    } else {
        const ApiSessionKeys::Choice choice = sessions_.choose(exchange.request.messages);
        exchange.request.sessionId = choice.sessionId;
        for (const QString& gone : choice.evicted)
            backend_->forgetSession(gone);
    }
    const QString prefix =
        endpoint == Endpoint::ChatCompletions ? QStringLiteral("chatcmpl-") : QStringLiteral("cmpl-");
    exchange.who = {prefix + QString::number(QRandomGenerator::global()->generate64(), 36),
                    QDateTime::currentSecsSinceEpoch(), model};
    const CompletionRequest toStart = exchange.request;
    exchanges_.insert(toStart.id, std::move(exchange));
    backend_->start(toStart);
}

void ApiServer::startStream(Exchange& exchange) {
    if (exchange.streamStarted || !exchange.connection) return;
    exchange.streamStarted = true;
    exchange.connection->beginStream(200, "text/event-stream");
    if (exchange.endpoint == Endpoint::ChatCompletions)
        exchange.connection->write(
            sseEvent(chatChunkJson(exchange.who, QStringLiteral("assistant"), QString(), QString())));
}

void ApiServer::onPiece(quint64 id, const QString& text) {
    const auto it = exchanges_.find(id);
    if (it == exchanges_.end()) return;
    Exchange& exchange = *it;
    exchange.text += text;
    if (!exchange.stream || !exchange.connection) return;
    startStream(exchange);
    exchange.connection->write(sseEvent(exchange.endpoint == Endpoint::ChatCompletions
                                            ? chatChunkJson(exchange.who, QString(), text, QString())
                                            : textChunkJson(exchange.who, text, QString())));
}

void ApiServer::writeToolCall(Exchange& exchange, int index, const ApiToolCall& call) {
    exchange.connection->write(
        sseEvent(chatToolCallChunkJson(exchange.who, toolCallOpeningDelta(index, call))));
    if (!call.arguments.isEmpty())
        exchange.connection->write(
            sseEvent(chatToolCallChunkJson(exchange.who, toolCallArgumentsDelta(index, call.arguments))));
}

void ApiServer::onToolCall(quint64 id, int index, const ApiToolCall& call) {
    const auto it = exchanges_.find(id);
    if (it == exchanges_.end()) return;
    Exchange& exchange = *it;
    if (!exchange.stream || !exchange.connection || index != exchange.toolCallsSent) return;
    startStream(exchange);
    writeToolCall(exchange, index, call);
    ++exchange.toolCallsSent;
}

void ApiServer::onFinished(quint64 id, const CompletionResult& result) {
    const auto it = exchanges_.find(id);
    if (it == exchanges_.end()) return;
    Exchange exchange = std::move(*it);
    exchanges_.erase(it);
    const bool failed = result.errorStatus != 0;
    const bool cancelled = !failed && result.finishReason == QLatin1String("cancelled");
    if (!failed && !cancelled) {
        ++served_;
        if (!exchange.request.rawPrompt) {
            // The reply as the client sends it back in its next request (calls: content null).
            const QString content =
                !result.toolCalls.isEmpty() && exchange.text.trimmed().isEmpty() ? QString() : exchange.text;
            sessions_.remember(
                exchange.request.sessionId, exchange.request.messages,
                ApiMessage{chat::Role::Assistant, content, toolCallTemplateFields(result.toolCalls)});
        }
        emit completionServed(result);
    }
    HttpConnection* connection = exchange.connection;
    if (!connection || !connection->connected()) return;
    if (failed) {
        const ApiError error{result.errorStatus, result.error, errorTypeFor(result.errorStatus), QString(),
                             QString()};
        if (exchange.streamStarted) { // the status is sent: the error goes in the stream
            connection->write(sseEvent(errorBody(error)));
            connection->write(sseEvent("[DONE]"));
            connection->end();
        } else {
            sendError(connection, error);
        }
        return;
    }
    if (!exchange.stream) {
        sendJson(connection, exchange.endpoint == Endpoint::ChatCompletions
                                 ? chatCompletionJson(exchange.who, exchange.text, result)
                                 : textCompletionJson(exchange.who, exchange.text, result));
        return;
    }
    startStream(exchange);
    // The calls not streamed while the reply went on.
    for (qsizetype i = exchange.toolCallsSent; i < result.toolCalls.size(); ++i)
        writeToolCall(exchange, int(i), result.toolCalls[i]);
    const QString reason = cancelled ? QStringLiteral("stop") : result.finishReason;
    connection->write(sseEvent(exchange.endpoint == Endpoint::ChatCompletions
                                   ? chatChunkJson(exchange.who, QString(), QString(), reason)
                                   : textChunkJson(exchange.who, QString(), reason)));
    if (exchange.includeUsage)
        connection->write(sseEvent(usageChunkJson(exchange.who, exchange.endpoint, result)));
    connection->write(sseEvent("[DONE]"));
    connection->end();
}

void ApiServer::onConnectionClosed(HttpConnection* connection) {
    connections_.removeAll(connection);
    // Its completion stops before the next token (or never starts, if still queued).
    for (Exchange& exchange : exchanges_)
        if (exchange.connection == connection) {
            exchange.request.cancel->store(true);
            exchange.connection = nullptr;
        }
}

} // namespace hearth::server
