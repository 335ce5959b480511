#pragma once
// What moves between the conversation database and a file: a conversation with its messages in
// order (an export writes them, an import reads them), and the error a file that cannot be read
// or written gives, its message naming the file and, for a bad file, where in it.
#include "app/storage/records.h"
#include <QList>
#include <QString>
#include <stdexcept>

namespace hearth::app {

struct ConversationBundle {
    ConversationRecord conversation;
    // Every message, every branch, by position (parents before children); chosenPath() gives the
    // branch the conversation shows.
    QList<MessageRecord> messages;
};

class TransferError : public std::runtime_error {
public:
    explicit TransferError(const QString& message) : std::runtime_error(message.toStdString()) {}
    [[nodiscard]] QString message() const { return QString::fromUtf8(what()); }
};

} // namespace hearth::app
