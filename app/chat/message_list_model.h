#pragma once
// The messages of one conversation, as the chat view shows them. The conversation is a tree
// (an edit or a regenerated reply is a sibling version); the rows are the branch shown, from the
// first message down each message's chosen version (chosenPath), and the other versions stay in
// the tree to be switched to. The streaming reply grows in place through appendText().
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
        VersionRole,         // int: which of its siblings (versions) the message is, from 1
        VersionCountRole,    // int: how many versions the message has (1: no branch here)
        // QVariantList: a reply's function calls, each {id, server, tool, function, arguments,
        // status: "pending", "running", "done", "denied" or "failed"}; empty for the others.
        ToolCallsRole,
        // QVariantMap: a tool message's call {server, tool, function, isError, truncated}; empty
        // for the others.
        ToolResultRole,
        // QVariantList: the images the message shows, in order, each {sha256, name, bytes} (the
        // window's image provider serves image://hearth-images/<sha256>); empty: none.
        ImagesRole,
        // QString: the content once the message no longer streams, empty while it does. A view
        // bound to it is not written at every piece: QML keeps a string property's every value
        // on its garbage-collected heap, and a growing reply written there whole at each piece
        // made the collector run mid-reply, holding the window up to 10 ms a time.
        SettledContentRole,
        HasContentRole, // bool: the content is not empty (a reply's first piece has come)
    };
    Q_ENUM(Role)

    explicit MessageListModel(const QString& conversationId, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }
    [[nodiscard]] QString conversationId() const { return conversationId_; }
    [[nodiscard]] const QList<MessageRecord>& messages() const { return rows_; } // the branch shown
    // Every message, every branch, parents before children (what the store holds).
    [[nodiscard]] QList<MessageRecord> tree() const;
    [[nodiscard]] int versionCount(const QString& id) const;
    [[nodiscard]] int indexOf(const QString& id) const;
    [[nodiscard]] const MessageRecord* find(const QString& id) const;

    // The conversation's whole tree (SqlStore::messages); the rows become its chosen path.
    void setMessages(const QList<MessageRecord>& tree);
    // Adds a message under its parent (the last row, or none for the first) and shows it: it
    // becomes its parent's chosen version.
    void append(const MessageRecord& message);
    // Shows the version `step` places from message `id` among its siblings (-1: the previous,
    // 1: the next) and, below it, that version's own chosen path. Returns the version now shown,
    // or an empty string when there is none that way (or no such row). Rows that stay keep
    // their delegates.
    QString switchVersion(const QString& id, int step);
    bool appendText(const QString& id, const QString& text);
    bool setContent(const QString& id, const QString& text);
    bool setState(const QString& id, MessageState state);
    bool setStats(const QString& id, const QString& stats);
    bool setToolData(const QString& id, const QString& toolData);
    // After a context shift: the messages before `messageId` are out of the model's view.
    // An empty id (or one not here) means every message is in view.
    void setFirstInView(const QString& messageId);
    [[nodiscard]] int firstInViewRow() const; // 0 when every message is in view
    // Takes rows [row, end) out of view and returns them; they stay in the tree, a branch to
    // switch back to once a new version is appended at `row`.
    QList<MessageRecord> removeFrom(int row);

signals:
    void countChanged();

private:
    QString conversationId_;
    QList<MessageRecord> rows_;            // the branch shown; the current copy of its messages
    QHash<QString, MessageRecord> nodes_;  // every message; those in rows_ as of syncRows()
    QHash<QString, QStringList> children_; // by parent id ("" for the roots), in written order
    QStringList order_;                    // every message id, parents before children
    void syncRows();                       // rows_' messages into nodes_
    [[nodiscard]] QString parentKey(const MessageRecord& m) const;        // "" for a root or an orphan
    [[nodiscard]] QList<MessageRecord> pathFrom(const QString& id) const; // id and its chosen descent
    void showPath(QList<MessageRecord> path); // replaces the rows, keeping the delegates of equal rows
    QHash<QString, QString> stats_;           // by message id; not persisted
    QString firstInView_;                     // message id; not persisted
    // The replies' blocks, made when the view first asks and kept up to date as they stream.
    mutable QHash<QString, MarkdownBlockModel*> blockModels_;
    MarkdownBlockModel* blocksOf(const MessageRecord& row) const;
    void updateBlocks(const MessageRecord& row);
    void dropBlocks(const QString& id);
};

} // namespace hearth::app
