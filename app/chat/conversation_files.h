#pragma once
// Conversations to files and back, for QML: exports one conversation or all of them as Markdown,
// Hearth's JSON or PDF into the export folder (the Documents folder unless set) under a name no
// file has yet, and imports Hearth's JSON or ChatGPT's conversations.json. The files are written
// off the GUI thread; `status` says where an export went, what an import brought, or what failed.
#include <QObject>
#include <QString>
#include <QUrl>
#include <QtQml/qqmlregistration.h>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class AppSettings;
class ConversationStore;

class ConversationFiles : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Created by the application")
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(QString status READ status NOTIFY statusChanged)
    Q_PROPERTY(bool failed READ failed NOTIFY statusChanged)
    Q_PROPERTY(QString lastFile READ lastFile NOTIFY statusChanged)
    Q_PROPERTY(QString exportFolder READ exportFolder WRITE setExportFolder NOTIFY exportFolderChanged)

public:
    ConversationFiles(AppSettings* settings, ConversationStore* store, QObject* parent = nullptr);

    [[nodiscard]] bool busy() const { return busy_; }
    [[nodiscard]] QString status() const { return status_; }
    [[nodiscard]] bool failed() const { return failed_; }
    [[nodiscard]] QString lastFile() const { return lastFile_; } // the export's path, once written
    [[nodiscard]] QString exportFolder() const { return exportFolder_; }
    void setExportFolder(const QString& folder);

    // `format`: "markdown", "json" or "pdf". Ignored while busy.
    Q_INVOKABLE void exportConversation(const QString& conversationId, const QString& format);
    Q_INVOKABLE void exportAll(const QString& format);
    Q_INVOKABLE void importFile(const QUrl& file);
    Q_INVOKABLE void clearStatus();

    // "<folder>/<name>.<extension>", with " (2)", " (3)"... before the extension when taken; the
    // name made safe for a file name.
    static QString uniquePath(const QString& folder, const QString& name, const QString& extension);

signals:
    void busyChanged();
    void statusChanged();
    void exportFolderChanged();
    void finished();                  // an export or import is over, written or not
    void imported(int conversations); // conversations were added to the database

private:
    QCoro::Task<> exportConversations(QStringList ids, QString format, QString name);
    QCoro::Task<> importPath(QString path);
    void setBusy(bool busy);
    void finish(const QString& status, bool failed, const QString& file = QString());

    AppSettings* settings_;
    ConversationStore* store_;
    QString exportFolder_;
    bool busy_ = false;
    QString status_;
    bool failed_ = false;
    QString lastFile_;
};

} // namespace hearth::app
