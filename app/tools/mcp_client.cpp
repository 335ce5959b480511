#include "app/tools/mcp_client.h"
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTimer>

namespace hearth::app {

namespace {
constexpr qsizetype kMaxLineBytes = 64 * 1024 * 1024; // a line longer than this is not an answer
constexpr qsizetype kStderrKept = 4096;
constexpr int kMethodNotFound = -32601;

QString seconds(int ms) {
    return QString::number((ms + 500) / 1000);
}

// A bit of what the server wrote, quoted on one line for a message.
QString excerpt(const QByteArray& bytes) {
    QString text = QString::fromUtf8(bytes).simplified();
    if (text.size() > 80) text = text.left(79) + QChar(0x2026);
    return text;
}
} // namespace

McpClient::McpClient(McpServerConfig config, QObject* parent) : QObject(parent), config_(std::move(config)) {}

McpClient::~McpClient() {
    // Requests still waiting are answered: their callers may hold state that waits for them.
    const QHash<qint64, Pending> waiting = std::exchange(pending_, {});
    for (const Pending& p : waiting)
        p.handler({}, described(tr("was stopped")));
    if (process_) {
        process_->disconnect(this);
        process_->closeWriteChannel(); // the spec's shutdown: stdin closed, then SIGTERM, then SIGKILL
        if (!process_->waitForFinished(300)) process_->terminate();
    }
    // This server, and any stopped before that has not gone yet, end before their objects do.
    for (QProcess* process : findChildren<QProcess*>(Qt::FindDirectChildrenOnly)) {
        process->disconnect(this);
        if (process->state() == QProcess::NotRunning) continue;
        if (!process->waitForFinished(1000)) {
            process->kill();
            process->waitForFinished(1000);
        }
    }
}

QString McpClient::described(const QString& what) const {
    return tr("MCP server \u201c%1\u201d %2").arg(config_.name, what);
}

QString McpClient::stderrTail() const {
    const QList<QByteArray> lines = stderr_.trimmed().split('\n');
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.constLast()).trimmed();
}

void McpClient::setState(State state) {
    if (state_ == state) return;
    state_ = state;
    emit stateChanged();
}

void McpClient::start(int timeoutMs) {
    if (state_ == State::Starting || state_ == State::Ready) return;
    timeoutMs_ = timeoutMs;
    nextId_ = 1; // a new process is a new session
    lastError_.clear();
    buffer_.clear();
    stderr_.clear();
    setState(State::Starting);
    process_ = new QProcess(this);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (auto it = config_.environment.begin(); it != config_.environment.end(); ++it)
        environment.insert(it.key(), it.value());
    process_->setProcessEnvironment(environment);
    connect(process_, &QProcess::readyReadStandardOutput, this, &McpClient::readOutput);
    connect(process_, &QProcess::readyReadStandardError, this, [this] {
        stderr_ += process_->readAllStandardError();
        if (stderr_.size() > kStderrKept) stderr_ = stderr_.right(kStderrKept);
    });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(
                described(tr("could not be started (%1): %2").arg(config_.command, process_->errorString())));
    });
    connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        readOutput(); // what it wrote before it went
        const QString how =
            status == QProcess::CrashExit ? tr("crashed") : tr("exited with code %1").arg(code);
        const QString tail = stderrTail();
        fail(described(tail.isEmpty() ? tr("stopped: it %1").arg(how)
                                      : tr("stopped: it %1 (%2)").arg(how, tail.left(200))));
    });
    process_->start(config_.command, config_.arguments);

    const QJsonObject params{
        {"protocolVersion", QString::fromLatin1(kProtocolVersion)},
        {"capabilities", QJsonObject{}},
        {"clientInfo", QJsonObject{{"name", "Hearth"}, {"version", QCoreApplication::applicationVersion()}}}};
    request(QStringLiteral("initialize"), params, timeoutMs,
            [this, timeoutMs](const QJsonObject& result, const QString& error) {
                if (!error.isEmpty()) return; // fail() has run
                if (!result.value("protocolVersion").isString()) {
                    fail(described(tr("answered initialize without a protocol version")));
                    return;
                }
                send(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
                listTools(timeoutMs);
            });
}

void McpClient::listTools(int timeoutMs) {
    request(QStringLiteral("tools/list"), {}, timeoutMs,
            [this](const QJsonObject& result, const QString& error) {
                if (!error.isEmpty()) {
                    if (state_ == State::Starting) fail(error);
                    return;
                }
                QList<McpTool> tools;
                for (const QJsonValue& item : result.value("tools").toArray()) {
                    const QJsonObject o = item.toObject();
                    McpTool tool{o.value("name").toString(), o.value("title").toString(),
                                 o.value("description").toString(), o.value("inputSchema").toObject()};
                    if (!tool.name.isEmpty()) tools.append(tool);
                }
                tools_ = tools;
                emit toolsChanged();
                if (state_ == State::Starting) {
                    setState(State::Ready);
                    emit ready();
                }
            });
}

void McpClient::stop() {
    if (!process_) {
        setState(State::Stopped);
        return;
    }
    QProcess* process = std::exchange(process_, nullptr);
    process->disconnect(this);
    process->closeWriteChannel();
    // Terminated if it has not gone a moment later, killed if it is still there after that.
    QTimer::singleShot(500, process, [process] { process->terminate(); });
    QTimer::singleShot(3000, process, [process] { process->kill(); });
    connect(process, &QProcess::finished, process, &QObject::deleteLater);
    const QHash<qint64, Pending> waiting = std::exchange(pending_, {});
    setState(State::Stopped);
    for (const Pending& p : waiting) {
        delete p.deadline;
        p.handler({}, described(tr("was stopped")));
    }
}

void McpClient::fail(const QString& message) {
    if (state_ == State::Failed && !process_) return;
    lastError_ = message;
    QProcess* process = std::exchange(process_, nullptr);
    if (process) {
        process->disconnect(this);
        if (process->state() != QProcess::NotRunning) {
            process->kill(); // gone within milliseconds: SIGKILL
            process->waitForFinished(1000);
        }
        process->deleteLater();
    }
    const QHash<qint64, Pending> waiting = std::exchange(pending_, {});
    setState(State::Failed);
    const QPointer<McpClient> self(this);
    for (const Pending& p : waiting) {
        delete p.deadline;
        p.handler({}, message);
        if (!self) return;
    }
    emit failed(message);
}

void McpClient::send(const QJsonObject& message) {
    if (!process_) return;
    process_->write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

void McpClient::request(const QString& method, const QJsonObject& params, int timeoutMs,
                        ResponseHandler handler) {
    if (!process_) {
        handler({}, lastError_.isEmpty() ? described(tr("is not running")) : lastError_);
        return;
    }
    const qint64 id = nextId_++;
    auto* deadline = new QTimer(this);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, this, [this, method, timeoutMs] {
        // A server that misses a deadline may be stuck: it is stopped, and started again when needed.
        fail(described(tr("did not answer %1 within %2 s").arg(method, seconds(timeoutMs))));
    });
    deadline->start(timeoutMs);
    pending_.insert(id, Pending{method, std::move(handler), deadline});
    QJsonObject message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.isEmpty()) message.insert("params", params);
    send(message);
}

void McpClient::readOutput() {
    if (!process_) return;
    buffer_ += process_->readAllStandardOutput();
    const QPointer<McpClient> self(this);
    qsizetype newline;
    while (self && process_ && (newline = buffer_.indexOf('\n')) >= 0) {
        const QByteArray line = buffer_.left(newline).trimmed();
        buffer_.remove(0, newline + 1);
        if (line.isEmpty()) continue;
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject() ||
            document.object().value("jsonrpc").toString() != QLatin1String("2.0")) {
            fail(described(
                tr("wrote something that is not a JSON-RPC message: \u201c%1\u201d").arg(excerpt(line))));
            return;
        }
        handleMessage(document.object());
    }
    if (self && process_ && buffer_.size() > kMaxLineBytes)
        fail(described(tr("wrote a line longer than %1 MiB").arg(kMaxLineBytes >> 20)));
}

void McpClient::handleMessage(const QJsonObject& message) {
    if (message.contains("method")) {
        if (message.contains("id"))
            answerServerRequest(message);
        else if (message.value("method").toString() == QLatin1String("notifications/tools/list_changed") &&
                 state_ == State::Ready)
            listTools(timeoutMs_);
        return; // other notifications (logging, progress) are not shown
    }
    const qint64 id = message.value("id").toInteger(-1);
    const auto it = pending_.find(id);
    if (it == pending_.end()) return; // an answer to a request given up on
    const Pending p = *it;
    pending_.erase(it);
    delete p.deadline;
    if (message.contains("error")) {
        const QJsonObject error = message.value("error").toObject();
        p.handler({}, described(tr("refused %1: %2 (error %3)")
                                    .arg(p.method, error.value("message").toString(),
                                         QString::number(error.value("code").toInteger()))));
    } else if (!message.value("result").isObject()) {
        p.handler({}, described(tr("answered %1 without a result").arg(p.method)));
    } else {
        p.handler(message.value("result").toObject(), QString());
    }
}

void McpClient::answerServerRequest(const QJsonObject& message) {
    // Hearth offers the server no capabilities (roots, sampling, elicitation): only ping is answered.
    QJsonObject answer{{"jsonrpc", "2.0"}, {"id", message.value("id")}};
    if (message.value("method").toString() == QLatin1String("ping"))
        answer.insert("result", QJsonObject{});
    else
        answer.insert("error", QJsonObject{{"code", kMethodNotFound}, {"message", "Method not found"}});
    send(answer);
}

void McpClient::callTool(const QString& name, const QJsonObject& arguments, int timeoutMs,
                         std::function<void(const McpCallResult&)> done) {
    if (state_ != State::Ready) {
        done({lastError_.isEmpty() ? described(tr("is not running")) : lastError_, true, true});
        return;
    }
    request(QStringLiteral("tools/call"), QJsonObject{{"name", name}, {"arguments", arguments}}, timeoutMs,
            [done = std::move(done)](const QJsonObject& result, const QString& error) {
                if (!error.isEmpty()) {
                    done({error, true, true});
                    return;
                }
                done({mcpResultText(result), result.value("isError").toBool(), false});
            });
}

QString mcpResultText(const QJsonObject& result) {
    QStringList parts;
    for (const QJsonValue& item : result.value("content").toArray()) {
        const QJsonObject part = item.toObject();
        const QString type = part.value("type").toString();
        if (type == QLatin1String("text")) {
            parts.append(part.value("text").toString());
        } else if (type == QLatin1String("resource")) {
            const QJsonObject resource = part.value("resource").toObject();
            parts.append(resource.contains("text")
                             ? resource.value("text").toString()
                             : QStringLiteral("[resource %1]").arg(resource.value("uri").toString()));
        } else if (type == QLatin1String("resource_link")) {
            parts.append(QStringLiteral("[resource %1]").arg(part.value("uri").toString()));
        } else {
            parts.append(QStringLiteral("[%1 %2]").arg(type, part.value("mimeType").toString()).simplified());
        }
    }
    if (parts.isEmpty() && result.contains("structuredContent"))
        parts.append(QString::fromUtf8(
            QJsonDocument(result.value("structuredContent").toObject()).toJson(QJsonDocument::Compact)));
    return parts.join(QLatin1Char('\n'));
}

} // namespace hearth::app
