#include "app/chat/markdown_block_model.h"

namespace hearth::app {

MarkdownBlockModel::MarkdownBlockModel(QObject* parent) : QAbstractListModel(parent) {}

int MarkdownBlockModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant MarkdownBlockModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const MarkdownBlock& block = rows_.at(index.row());
    switch (role) {
    case KindRole:
        return block.kind == MarkdownBlock::Kind::Code ? QStringLiteral("code") : QStringLiteral("text");
    case Qt::DisplayRole:
    case BlockTextRole:
        return block.text;
    case LanguageRole:
        return block.language;
    case ClosedRole:
        return block.closed;
    default:
        return {};
    }
}

QHash<int, QByteArray> MarkdownBlockModel::roleNames() const {
    return {
        {KindRole, "kind"}, {BlockTextRole, "blockText"}, {LanguageRole, "language"}, {ClosedRole, "closed"}};
}

void MarkdownBlockModel::setMarkdown(const QString& markdown) {
    tailStart_ = 0;
    finished_ = 0;
    splitTail(markdown);
}

void MarkdownBlockModel::extendMarkdown(const QString& markdown) {
    if (tailStart_ > markdown.size()) return setMarkdown(markdown); // shorter: not an extension
    splitTail(markdown);
}

void MarkdownBlockModel::splitTail(const QString& markdown) {
    QList<qsizetype> starts;
    const QList<MarkdownBlock> tail = splitMarkdownBlocks(markdown.mid(tailStart_), &starts);

    // Rows from finished_ on become `tail`: changed ones are signalled, the rest added or removed.
    const int oldCount = count();
    const int newCount = finished_ + static_cast<int>(tail.size());
    for (int i = 0; i < tail.size() && finished_ + i < oldCount; ++i) {
        const int row = finished_ + i;
        if (rows_[row] == tail[i]) continue;
        rows_[row] = tail[i];
        emit dataChanged(index(row), index(row));
    }
    if (newCount > oldCount) {
        beginInsertRows(QModelIndex(), oldCount, newCount - 1);
        for (int i = oldCount - finished_; i < tail.size(); ++i)
            rows_.append(tail[i]);
        endInsertRows();
    } else if (newCount < oldCount) {
        beginRemoveRows(QModelIndex(), newCount, oldCount - 1);
        rows_.resize(newCount);
        endRemoveRows();
    }

    // Blocks that start before the last one are final; the next split starts at the last.
    if (!tail.isEmpty()) {
        const qsizetype last = starts.constLast();
        int final = 0;
        while (final < tail.size() && starts[final] < last)
            ++final;
        finished_ += final;
        tailStart_ += last;
    }
    if (newCount != oldCount) emit countChanged();
}

} // namespace hearth::app
