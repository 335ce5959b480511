#pragma once
// Which KV cache an API request runs in. Clients resend the whole conversation each
// time, so a request whose messages extend an earlier request's (its messages and
// the reply it got) goes to that request's session, where the chat session reuses the
// cached prefix, as a GUI conversation does. Conversations are known by a chained hash
// of their messages (their images by id); the least recently used sessions beyond a few are let go.
#include "app/server/completion_backend.h"
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QStringList>

namespace hearth::server {

class ApiSessionKeys {
public:
    // prefix: starts every session id, so that they never meet the app's conversation ids.
    explicit ApiSessionKeys(QString prefix, int maxSessions = 4);

    struct Choice {
        QString sessionId;
        QStringList evicted; // sessions no longer keyed: their caches can be dropped
    };
    // The session of the longest earlier conversation these messages extend (or repeat),
    // else a new one.
    Choice choose(const QList<ApiMessage>& messages);
    // The request ran in `sessionId`: its messages, and its messages with `reply`, lead there.
    void remember(const QString& sessionId, const QList<ApiMessage>& messages, const QString& reply);
    void remember(const QString& sessionId, const QList<ApiMessage>& messages, const ApiMessage& reply);

    // Hashes of each prefix of `messages`: element k covers messages [0, k].
    static QList<QByteArray> prefixKeys(const QList<ApiMessage>& messages);

private:
    struct Session {
        QString id;
        QList<QByteArray> keys;
    };
    void touch(qsizetype index);

    QString prefix_;
    int maxSessions_;
    quint64 next_ = 1;
    QList<Session> sessions_;          // most recently used first
    QHash<QByteArray, QString> owner_; // conversation hash -> session id
};

} // namespace hearth::server
