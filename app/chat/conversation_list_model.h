#pragma once
// The conversations in the sidebar, most recently active first.
#include "app/storage/records.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ChatController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, // QString: the conversation's UUID
        TitleRole,                 // QString
        UpdatedAtRole,             // QDateTime: last message or rename
        PeriodRole,                // QString: "Today", "Yesterday", "Previous 7 days", "Older"
    };
    Q_ENUM(Role)

    explicit ConversationListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setConversations(QList<ConversationRecord> conversations);
    void prepend(const ConversationRecord& conversation);
    bool rename(const QString& id, const QString& title);
    bool remove(const QString& id);
    // Marks the conversation active at `time` and moves it to the top.
    bool touch(const QString& id, const QDateTime& time);

    [[nodiscard]] int indexOf(const QString& id) const;
    [[nodiscard]] const ConversationRecord* find(const QString& id) const;
    [[nodiscard]] const QList<ConversationRecord>& conversations() const { return rows_; }
    Q_INVOKABLE QString idAt(int row) const;

signals:
    void countChanged();

private:
    QList<ConversationRecord> rows_;
};

QString periodOf(const QDateTime& time, const QDate& today);

} // namespace hearth::app
