#include "app/platform/single_instance.h"
#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QLocalSocket>
#include <QThread>
#include <QtEndian>
#include <algorithm>

namespace hearth::app {

namespace {
constexpr char kReceived = 1; // the running instance's answer once it has the arguments
constexpr quint32 kMaxMessageBytes = 1 << 20;
} // namespace

SingleInstance::SingleInstance(const QString& dataDir, QObject* parent)
    : QObject(parent), dataDir_(QDir(dataDir).absolutePath()) {
    connect(&server_, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* socket = server_.nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, this, [this, socket] { readFrom(socket); });
            readFrom(socket);
        }
    });
}

SingleInstance::~SingleInstance() {
    server_.close();
}

QString SingleInstance::socketName(const QString& dataDir) {
    // Local socket names are short file names in the temp folder: a hash of the folder's path.
    const QString canonical = QFileInfo(dataDir).canonicalFilePath();
    const QByteArray path = (canonical.isEmpty() ? QDir(dataDir).absolutePath() : canonical).toUtf8();
    return QStringLiteral("hearth-") +
           QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha256).toHex().left(24));
}

bool SingleInstance::claim() {
    if (lock_) return true;
    QDir().mkpath(dataDir_);
    auto lock = std::make_unique<QLockFile>(dataDir_ + QStringLiteral("/hearth.lock"));
    // A running instance holds its lock for hours: only a lock whose process is gone is stale.
    lock->setStaleLockTime(0);
    if (!lock->tryLock(0)) return false;
    lock_ = std::move(lock);
    const QString name = socketName(dataDir_);
    // The lock is ours, so a socket of that name is a leftover of a killed instance.
    QLocalServer::removeServer(name);
    server_.setSocketOptions(QLocalServer::UserAccessOption);
    if (!server_.listen(name))
        qWarning("%s: cannot listen for other instances: %s", qPrintable(name),
                 qPrintable(server_.errorString()));
    return true;
}

bool SingleInstance::handOver(const QStringList& arguments, int timeoutMs, QString* error) const {
    const QDeadlineTimer deadline(timeoutMs);
    const auto remainingMs = [&] { return static_cast<int>(std::max<qint64>(deadline.remainingTime(), 0)); };
    QLocalSocket socket;
    // The running instance may have taken the lock a moment ago and not be listening yet.
    for (;;) {
        socket.connectToServer(socketName(dataDir_));
        if (socket.waitForConnected(std::min(remainingMs(), 500))) break;
        if (deadline.hasExpired()) {
            *error = tr("Hearth is already running with %1 but does not answer: %2")
                         .arg(QDir::toNativeSeparators(dataDir_), socket.errorString());
            return false;
        }
        QThread::msleep(50);
    }
    QStringList absolute;
    for (const QString& argument : arguments)
        absolute.append(QDir::current().absoluteFilePath(argument));
    const QByteArray payload = absolute.join(QChar(0)).toUtf8();
    QByteArray message(4, 0);
    qToBigEndian(static_cast<quint32>(payload.size()), message.data());
    socket.write(message + payload);
    while (socket.bytesToWrite() > 0 && socket.waitForBytesWritten(remainingMs())) {
    }
    while (socket.bytesAvailable() < 1 && socket.waitForReadyRead(remainingMs())) {
    }
    char answer = 0;
    if (socket.read(&answer, 1) != 1 || answer != kReceived) {
        *error = tr("Hearth is already running with %1 but did not take the request: %2")
                     .arg(QDir::toNativeSeparators(dataDir_), socket.errorString());
        return false;
    }
    socket.disconnectFromServer();
    return true;
}

void SingleInstance::readFrom(QLocalSocket* socket) {
    // A 4-byte big-endian length, then the arguments in UTF-8, separated by NUL characters.
    if (socket->bytesAvailable() < 4) return;
    char header[4];
    socket->peek(header, 4);
    const quint32 size = qFromBigEndian<quint32>(header);
    if (size > kMaxMessageBytes) {
        socket->abort(); // not one of ours: no real command line is that long
        return;
    }
    if (socket->bytesAvailable() < 4 + qint64(size)) return; // the rest comes with readyRead
    socket->skip(4);
    const QString text = QString::fromUtf8(socket->read(size));
    socket->write(&kReceived, 1);
    socket->flush();
    emit argumentsReceived(text.isEmpty() ? QStringList() : text.split(QChar(0)));
}

} // namespace hearth::app
