#include "app/server/api_session_keys.h"
#include <QCryptographicHash>

namespace hearth::server {

namespace {
constexpr int kMaxKeysPerSession = 32;
}

ApiSessionKeys::ApiSessionKeys(QString prefix, int maxSessions)
    : prefix_(std::move(prefix)), maxSessions_(std::max(1, maxSessions)) {}

QList<QByteArray> ApiSessionKeys::prefixKeys(const QList<ApiMessage>& messages) {
    // Chained: key k = H(key k-1, H(message k)), so all prefixes cost one pass over the text.
    QList<QByteArray> keys;
    keys.reserve(messages.size());
    QByteArray previous;
    for (const ApiMessage& message : messages) {
        QCryptographicHash one(QCryptographicHash::Sha256);
        const std::string_view role = chat::role_name(message.role);
        one.addData(QByteArrayView(role.data(), static_cast<qsizetype>(role.size())));
        one.addData(QByteArrayView("\0", 1));
        one.addData(message.content.toUtf8());
        one.addData(QByteArrayView("\0", 1));
        one.addData(message.templateFields);
        for (const chat::ChatImage& image : message.images) { // the same text with another picture differs
            one.addData(QByteArrayView("\0", 1));
            one.addData(QByteArrayView(image.id.data(), static_cast<qsizetype>(image.id.size())));
        }
        QCryptographicHash chained(QCryptographicHash::Sha256);
        chained.addData(previous);
        chained.addData(one.result());
        previous = chained.result();
        keys.append(previous);
    }
    return keys;
}

void ApiSessionKeys::touch(qsizetype index) {
    if (index > 0) sessions_.move(index, 0);
}

ApiSessionKeys::Choice ApiSessionKeys::choose(const QList<ApiMessage>& messages) {
    const QList<QByteArray> keys = prefixKeys(messages);
    for (qsizetype k = keys.size() - 1; k >= 0; --k) {
        const auto found = owner_.constFind(keys[k]);
        if (found == owner_.constEnd()) continue;
        for (qsizetype i = 0; i < sessions_.size(); ++i)
            if (sessions_[i].id == *found) {
                touch(i);
                return {*found, {}};
            }
    }
    Choice choice;
    choice.sessionId = prefix_ + QString::number(next_++);
    sessions_.prepend(Session{choice.sessionId, {}});
    while (sessions_.size() > maxSessions_) {
        const Session gone = sessions_.takeLast();
        for (const QByteArray& key : gone.keys)
            if (owner_.value(key) == gone.id) owner_.remove(key);
        choice.evicted.append(gone.id);
    }
    return choice;
}

void ApiSessionKeys::remember(const QString& sessionId, const QList<ApiMessage>& messages,
                              const QString& reply) {
    remember(sessionId, messages, ApiMessage{chat::Role::Assistant, reply, {}});
}

void ApiSessionKeys::remember(const QString& sessionId, const QList<ApiMessage>& messages,
                              const ApiMessage& reply) {
    qsizetype index = -1;
    for (qsizetype i = 0; i < sessions_.size(); ++i)
        if (sessions_[i].id == sessionId) index = i;
    if (index < 0) return; // let go meanwhile
    QList<ApiMessage> extended = messages;
    extended.append(reply);
    const QList<QByteArray> keys = prefixKeys(extended);
    Session& session = sessions_[index];
    for (const QByteArray& key : {keys[keys.size() - 2], keys.last()}) {
        owner_.insert(key, sessionId); // the latest request to reach a conversation owns it
        session.keys.removeAll(key);
        session.keys.append(key);
    }
    while (session.keys.size() > kMaxKeysPerSession) {
        const QByteArray old = session.keys.takeFirst();
        if (owner_.value(old) == sessionId) owner_.remove(old);
    }
}

} // namespace hearth::server
