#pragma once
// The prompt tokens of the last replies, each split into those reused from the KV
// cache and those computed, for the metrics panel's per-reply chart. Fed with each
// finished reply's GenerationResult; the oldest drop out beyond `capacity`.
#include "app/models/worker_types.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class ReplyCacheHistory : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by MetricsController")
    Q_PROPERTY(int count READ count NOTIFY changed)
    Q_PROPERTY(int capacity READ capacity CONSTANT)
    Q_PROPERTY(int peak READ peak NOTIFY changed) // the largest prompt in the history (at least 1)
    Q_PROPERTY(int latestReused READ latestReused NOTIFY changed)
    Q_PROPERTY(int latestComputed READ latestComputed NOTIFY changed)
    Q_PROPERTY(bool latestRestored READ latestRestored NOTIFY changed)

public:
    enum Role {
        ReusedRole = Qt::UserRole + 1, // int: prompt tokens already in the cache
        ComputedRole,                  // int: prompt tokens prefilled for this reply
        GeneratedRole,                 // int: tokens of the reply
        RestoredRole,                  // bool: the cache came back from a saved state
        NumberRole,                    // int: 1 for the first reply recorded, then 2, 3...
    };
    Q_ENUM(Role)

    static constexpr int kDefaultCapacity = 20;
    explicit ReplyCacheHistory(int capacity = kDefaultCapacity, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }
    [[nodiscard]] int capacity() const { return capacity_; }
    [[nodiscard]] int peak() const;
    [[nodiscard]] int latestReused() const { return rows_.isEmpty() ? 0 : rows_.constLast().reused; }
    [[nodiscard]] int latestComputed() const { return rows_.isEmpty() ? 0 : rows_.constLast().computed; }
    [[nodiscard]] bool latestRestored() const { return !rows_.isEmpty() && rows_.constLast().restored; }

    // Appends the reply (oldest first), dropping the oldest beyond the capacity.
    void record(const GenerationResult& result);
    Q_INVOKABLE void clear();

signals:
    void changed();

private:
    struct Reply {
        int reused = 0;
        int computed = 0;
        int generated = 0;
        bool restored = false;
        int number = 0;
    };
    int capacity_;
    int recorded_ = 0;
    QList<Reply> rows_;
};

} // namespace hearth::app
