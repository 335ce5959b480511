#include "app/chat/conversation_files.h"
#include "app/settings/app_settings.h"
#include "app/storage/conversation_export_json.h"
#include "app/storage/conversation_export_markdown.h"
#include "app/storage/conversation_export_pdf.h"
#include "app/storage/conversation_store.h"
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>
#include <qcoro/qcorofuture.h>

namespace hearth::app {

namespace {
QString extensionOf(const QString& format) {
    if (format == QLatin1String("markdown")) return QStringLiteral("md");
    if (format == QLatin1String("json")) return QStringLiteral("json");
    if (format == QLatin1String("pdf")) return QStringLiteral("pdf");
    return {};
}

// The generation settings in force, for the JSON export: replies do not record theirs yet.
QJsonObject settingsObject(const AppSettings* s) {
    if (!s) return {};
    return QJsonObject{{QStringLiteral("systemPrompt"), s->systemPrompt()},
                       {QStringLiteral("temperature"), s->temperature()},
                       {QStringLiteral("topK"), s->topK()},
                       {QStringLiteral("topP"), s->topP()},
                       {QStringLiteral("minP"), s->minP()},
                       {QStringLiteral("repeatPenalty"), s->repeatPenalty()},
                       {QStringLiteral("seed"), s->seed()},
                       {QStringLiteral("maxReplyTokens"), s->maxReplyTokens()},
                       {QStringLiteral("chatTemplate"), s->chatTemplate()}};
}

// Writes the export; the error, or "" when it is written.
QString writeExport(const QList<ConversationBundle>& bundles, const QString& format,
                    const QJsonObject& settings, const QString& path) {
    try {
        if (format == QLatin1String("pdf")) {
            writeConversationsPdf(bundles, path);
            return {};
        }
        const QByteArray bytes = format == QLatin1String("json") ? conversationsToJson(bundles, settings)
                                                                 : conversationsToMarkdown(bundles).toUtf8();
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
            return ConversationFiles::tr("%1: cannot write: %2").arg(path, file.errorString());
        return {};
    } catch (const TransferError& e) {
        return e.message();
    }
}
} // namespace

ConversationFiles::ConversationFiles(AppSettings* settings, ConversationStore* store, QObject* parent)
    : QObject(parent), settings_(settings), store_(store),
      exportFolder_(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)) {}

void ConversationFiles::setExportFolder(const QString& folder) {
    if (folder == exportFolder_) return;
    exportFolder_ = folder;
    emit exportFolderChanged();
}

QString ConversationFiles::uniquePath(const QString& folder, const QString& name, const QString& extension) {
    static const QRegularExpression unsafe(QStringLiteral("[\\x00-\\x1f/\\\\:*?\"<>|]+"));
    QString base = name;
    base.replace(unsafe, QStringLiteral(" "));
    base = base.simplified().left(80).trimmed();
    while (base.startsWith(QLatin1Char('.')))
        base.remove(0, 1); // no hidden files
    if (base.isEmpty()) base = tr("Conversation");
    const QDir dir(folder);
    QString path = dir.filePath(base + QLatin1Char('.') + extension);
    for (int n = 2; QFileInfo::exists(path); ++n)
        path = dir.filePath(QStringLiteral("%1 (%2).%3").arg(base).arg(n).arg(extension));
    return path;
}

void ConversationFiles::exportConversation(const QString& conversationId, const QString& format) {
    if (busy_ || conversationId.isEmpty()) return;
    exportConversations({conversationId}, format, QString());
}

void ConversationFiles::exportAll(const QString& format) {
    if (busy_) return;
    exportConversations({}, format,
                        tr("Hearth conversations %1").arg(QDate::currentDate().toString(Qt::ISODate)));
}

void ConversationFiles::importFile(const QUrl& file) {
    if (busy_) return;
    importPath(file.isLocalFile() ? file.toLocalFile() : file.toString());
}

void ConversationFiles::clearStatus() {
    if (status_.isEmpty()) return;
    status_.clear();
    failed_ = false;
    emit statusChanged();
}

void ConversationFiles::setBusy(bool busy) {
    if (busy == busy_) return;
    busy_ = busy;
    emit busyChanged();
}

void ConversationFiles::finish(const QString& status, bool failed, const QString& file) {
    status_ = status;
    failed_ = failed;
    lastFile_ = file;
    setBusy(false);
    emit statusChanged();
    emit finished();
}

QCoro::Task<> ConversationFiles::exportConversations(QStringList ids, QString format, QString name) {
    const QString extension = extensionOf(format);
    if (extension.isEmpty()) {
        finish(tr("Unknown export format \"%1\"").arg(format), true);
        co_return;
    }
    setBusy(true);
    const QPointer<ConversationFiles> self(this);
    QCoro::Task<QList<ConversationBundle>> read = store_->loadBundles(ids);
    const QList<ConversationBundle> bundles = co_await read;
    if (!self) co_return;
    if (bundles.isEmpty()) {
        finish(tr("There is no conversation to export."), true);
        co_return;
    }
    if (name.isEmpty()) name = bundles.constFirst().conversation.title;
    if (!QDir().mkpath(exportFolder_)) {
        finish(tr("%1: cannot create the folder").arg(exportFolder_), true);
        co_return;
    }
    const QString path = uniquePath(exportFolder_, name, extension);
    QFuture<QString> write = QtConcurrent::run(writeExport, bundles, format, settingsObject(settings_), path);
    const QString error = co_await write;
    if (!self) co_return;
    if (!error.isEmpty())
        finish(error, true);
    else
        finish(tr("Exported %n conversation(s) to %1", nullptr, int(bundles.size()))
                   .arg(QDir::toNativeSeparators(path)),
               false, path);
}

QCoro::Task<> ConversationFiles::importPath(QString path) {
    setBusy(true);
    const QPointer<ConversationFiles> self(this);
    QCoro::Task<ConversationStore::ImportOutcome> run = store_->importFile(path);
    const ConversationStore::ImportOutcome outcome = co_await run;
    if (!self) co_return;
    if (!outcome.summary) {
        finish(outcome.error, true);
        co_return;
    }
    const ImportSummary& s = *outcome.summary;
    QString status = tr("Imported %n conversation(s)", nullptr, s.conversations) + QLatin1Char(' ') +
                     tr("from %1 (%2).").arg(QDir::toNativeSeparators(path), s.format);
    if (s.skippedConversations > 0)
        status += QLatin1Char(' ') +
                  tr("%n conversation(s) without a message were skipped.", nullptr, s.skippedConversations);
    finish(status, false);
    emit imported(s.conversations);
}

} // namespace hearth::app
