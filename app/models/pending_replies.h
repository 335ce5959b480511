#pragma once
// Replies the GUI thread awaits from the worker, matched by request id. A
// future is handed out before the request is sent, so a reply that comes back
// quickly cannot be missed (awaiting a signal could miss it).
#include <QFuture>
#include <QHash>
#include <QPromise>
#include <memory>

namespace hearth::app {

template <class T> class PendingReplies {
public:
    PendingReplies() = default;
    PendingReplies(const PendingReplies&) = delete;
    PendingReplies& operator=(const PendingReplies&) = delete;
    // Whoever still waits gets a default reply (and must check that its owner still exists).
    ~PendingReplies() {
        for (const auto& promise : std::as_const(promises_)) {
            promise->addResult(T{});
            promise->finish();
        }
    }

    QFuture<T> expect(quint64 id) {
        auto promise = std::make_shared<QPromise<T>>();
        promise->start();
        promises_.insert(id, promise);
        return promise->future();
    }
    // Returns false when nobody waits for `id`.
    bool fulfil(quint64 id, T value) {
        auto promise = promises_.take(id);
        if (!promise) return false;
        promise->addResult(std::move(value));
        promise->finish();
        return true;
    }

private:
    QHash<quint64, std::shared_ptr<QPromise<T>>> promises_;
};

} // namespace hearth::app
