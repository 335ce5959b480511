#pragma once
// The sidebar's view of the conversations: those whose title contains the search text.
#include <QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

class ConversationSearchModel : public QSortFilterProxyModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ChatController")
    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    explicit ConversationSearchModel(QObject* parent = nullptr);

    [[nodiscard]] QString searchText() const { return searchText_; }
    void setSearchText(const QString& text);
    [[nodiscard]] int count() const { return rowCount(); }
    Q_INVOKABLE QString idAt(int row) const;

signals:
    void searchTextChanged();
    void countChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString searchText_;
};

} // namespace hearth::app
