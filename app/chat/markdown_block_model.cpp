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
    case SettledTextRole:
        return isGrowing(index.row()) ? QString() : block.text;
    default:
        return {};
    }
}

QHash<int, QByteArray> MarkdownBlockModel::roleNames() const {
    return {{KindRole, "kind"},
            {BlockTextRole, "blockText"},
            {LanguageRole, "language"},
            {ClosedRole, "closed"},
            {SettledTextRole, "settledText"}};
}

bool MarkdownBlockModel::isGrowing(int row) const {
    return streaming_ && row == count() - 1 && rows_.at(row).kind == MarkdownBlock::Kind::Text;
}

void MarkdownBlockModel::setStreaming(bool streaming) {
    if (streaming == streaming_) return;
    streaming_ = streaming;
    if (const int last = count() - 1; last >= 0 && rows_.at(last).kind == MarkdownBlock::Kind::Text)
        emit dataChanged(index(last), index(last), {SettledTextRole});
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
    const int wasGrowing = oldCount > 0 && isGrowing(oldCount - 1) ? oldCount - 1 : -1;
    for (int i = 0; i < tail.size() && finished_ + i < oldCount; ++i) {
        const int row = finished_ + i;
        if (rows_[row] == tail[i]) continue;
        rows_[row] = tail[i];
        // The growing block only grows: its settled text stays empty.
        const bool stillGrowing = row == wasGrowing && row == newCount - 1 && isGrowing(row);
        emit dataChanged(index(row), index(row),
                         stillGrowing ? QList<int>{BlockTextRole, Qt::DisplayRole} : QList<int>{});
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
    // The block that grew and is now followed by another is final, its text unchanged or not.
    if (wasGrowing >= 0 && wasGrowing < newCount && !isGrowing(wasGrowing))
        emit dataChanged(index(wasGrowing), index(wasGrowing), {SettledTextRole});

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
