#pragma once
// One running app per profile (data folder). The first instance holds a lock file in the
// data folder for its whole life and listens on a local socket named after the folder; a
// second one started on the same profile finds the lock taken, hands its command-line
// arguments to the first over the socket and exits, so the conversation database is only
// ever opened by one process. A lock left by a killed process is taken over (QLockFile
// checks that its process is gone).
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <QObject>
#include <QStringList>
#include <memory>

namespace hearth::app {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    explicit SingleInstance(const QString& dataDir, QObject* parent = nullptr);
    ~SingleInstance() override;

    // Becomes the profile's running instance: true when this process now owns the profile
    // (and listens for others), false when another process does.
    bool claim();
    // From a second instance: sends `arguments` (file paths, made absolute here) to the running
    // one and waits until it has them; false, with the reason in *error, when it cannot.
    bool handOver(const QStringList& arguments, int timeoutMs, QString* error) const;

    // The local socket's name for a data folder: the same folder always gives the same name.
    static QString socketName(const QString& dataDir);

signals:
    // In the running instance: a second one was started with these arguments.
    void argumentsReceived(const QStringList& arguments);

private:
    void readFrom(QLocalSocket* socket);

    QString dataDir_;
    std::unique_ptr<QLockFile> lock_;
    QLocalServer server_;
};

} // namespace hearth::app
