#pragma once
// The messages of one conversation, as the chat view shows them. The streaming
// reply grows in place through appendText().
#include "app/chat/markdown_block_model.h"
#include "app/storage/records.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class MessageListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ChatController")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(QString conversationId READ conversationId CONSTANT)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, // QString: the message's UUID
        AuthorRole,                // QString: "user" or "assistant"
        ContentRole,               // QString: Markdown text
        StateRole,                 // QString: "complete", "streaming", "stopped", "failed"
        StreamingRole,             // bool: the reply is still growing
        StatsRole,                 // QString: e.g. "48 tokens · 212 tok/s", empty when unknown
        BlocksRole, // MarkdownBlockModel*: the reply split into prose and code blocks (null for the user's)
        OutOfViewRole,       // bool: the message has left the model's view (context shift)
        ContextBoundaryRole, // bool: the first message still in view after ones that left it
    };
    Q_ENUM(Role)

    explicit MessageListModel(const QString& conversationId, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }
    [[nodiscard]] QString conversationId() const { return conversationId_; }
    [[nodiscard]] const QList<MessageRecord>& messages() const { return rows_; }
    [[nodiscard]] int indexOf(const QString& id) const;
    [[nodiscard]] const MessageRecord* find(const QString& id) const;

    void setMessages(QList<MessageRecord> messages);
    void append(const MessageRecord& message);
    bool appendText(const QString& id, const QString& text);
    bool setContent(const QString& id, const QString& text);
    bool setState(const QString& id, MessageState state);
    bool setStats(const QString& id, const QString& stats);
    // After a context shift: the messages before `messageId` are out of the model's view.
    // An empty id (or one not here) means every message is in view.
    void setFirstInView(const QString& messageId);
    [[nodiscard]] int firstInViewRow() const; // 0 when every message is in view
    // Removes rows [row, end) and returns them.
    QList<MessageRecord> removeFrom(int row);

signals:
    void countChanged();

private:
    QString conversationId_;
    QList<MessageRecord> rows_;
    QHash<QString, QString> stats_; // by message id; not persisted
    QString firstInView_;           // message id; not persisted
    // The replies' blocks, made when the view first asks and kept up to date as they stream.
    mutable QHash<QString, MarkdownBlockModel*> blockModels_;
    MarkdownBlockModel* blocksOf(const MessageRecord& row) const;
    void updateBlocks(const MessageRecord& row);
    void dropBlocks(const QString& id);
};

} // namespace hearth::app
