#pragma once
// The library of system prompts (preset_store.h), as the chat header's chooser and the library's
// editor list them: in the order they were created.
#include "app/storage/preset_store.h"
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class PromptPresetListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by PresetController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    // Changes with every change of a row (a rename too): bindings that call nameOf() read it.
    Q_PROPERTY(int revision READ revision NOTIFY revisionChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1, // QString
        NameRole,                  // QString
        PromptRole,                // QString: the system message it sends
        BuiltInRole,               // bool: one of those the library starts with
    };
    Q_ENUM(Role)

    explicit PromptPresetListModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setPresets(QList<PromptPreset> presets);
    void append(const PromptPreset& preset);
    bool update(const PromptPreset& preset); // its name and prompt, by id
    bool remove(const QString& id);

    [[nodiscard]] int revision() const { return revision_; }
    [[nodiscard]] int indexOf(const QString& id) const;
    [[nodiscard]] const PromptPreset* find(const QString& id) const;
    [[nodiscard]] const QList<PromptPreset>& presets() const { return rows_; }
    Q_INVOKABLE QString idAt(int row) const;
    Q_INVOKABLE int rowOf(const QString& id) const { return indexOf(id); }
    // The preset's name and text; "" for an id the library does not hold.
    Q_INVOKABLE QString nameOf(const QString& id) const;
    Q_INVOKABLE QString promptOf(const QString& id) const;

signals:
    void countChanged();
    void revisionChanged();

private:
    void changed();
    QList<PromptPreset> rows_;
    int revision_ = 0;
};

} // namespace hearth::app
