#pragma once
// Who may call the API, decided before any work. A server on loopback is still reachable from
// every web page the user opens: a page may send a "simple" cross-site request (a POST of
// text/plain) without a preflight, and DNS rebinding points a page's own name at 127.0.0.1.
// So every request is screened:
// - Host must name this computer's loopback (localhost, 127.0.0.1, [::1], any port), the
//   address the server listens on, or a name the user allowed: else 403 (DNS rebinding).
// - Origin, when a browser sends one, must be the server's own or one the user allowed: else
//   403. Allowed origins get CORS headers (preflights included); others never do.
// - A body must be application/json: else 415 (no simple cross-site request gets through).
#include "app/server/http_connection.h"
#include "app/server/openai_protocol.h"
#include <QHostAddress>
#include <QStringList>
#include <optional>

namespace hearth::server {

struct FrontDoorDecision {
    enum class Kind {
        Admit,     // go on; `headers` go on every response to this request
        Preflight, // a CORS preflight of an allowed origin: answer 204 with `headers`
        Refuse,    // answer `error` with `headers` (CORS only for an allowed origin)
    };
    Kind kind = Kind::Admit;
    HttpHeaders headers;
    ApiError error;
};

class FrontDoor {
public:
    // Origins allowed to call from a web page: "https://app.example", "http://localhost:3000",
    // "http://localhost:*" (any port), or "*" (every origin). Throws nothing: validate first.
    void setAllowedOrigins(const QStringList& origins);
    // Host names (or addresses) clients may use besides loopback, without a port; "*": any.
    void setAllowedHosts(const QStringList& hosts);
    // The address the server listens on: its literal is accepted as a Host.
    void setListenAddress(const QHostAddress& address) { listenAddress_ = address; }

    [[nodiscard]] FrontDoorDecision screen(const HttpRequest& request) const;

    // Why an allowed-origin entry is not one (empty when it is fine).
    static QString originPatternError(const QString& origin);
    // Why an allowed-host entry is not one (empty when it is fine).
    static QString hostNameError(const QString& host);
    // A setting's text split at commas and whitespace.
    static QStringList splitList(const QString& text);

private:
    [[nodiscard]] bool hostAllowed(const QByteArray& host) const;
    [[nodiscard]] bool originAllowed(const QByteArray& origin, const QByteArray& host) const;

    QStringList allowedOrigins_; // lower-cased
    QStringList allowedHosts_;   // lower-cased
    QHostAddress listenAddress_;
};

} // namespace hearth::server
