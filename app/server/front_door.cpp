#include "app/server/front_door.h"
#include <QRegularExpression>

namespace hearth::server {

namespace {

struct HostPort {
    QString host;    // lower-case, without brackets or a trailing dot
    QByteArray port; // digits, or "*" in an origin pattern; empty when absent
};

// "name", "name:port", "[v6]" or "[v6]:port"; nullopt when malformed.
std::optional<HostPort> splitHostPort(QByteArrayView text, bool wildcardPort = false) {
    if (text.isEmpty()) return std::nullopt;
    QByteArrayView host = text;
    QByteArrayView rest;
    if (text.startsWith('[')) {
        const qsizetype end = text.indexOf(']');
        if (end < 0) return std::nullopt;
        host = text.sliced(1, end - 1);
        rest = text.sliced(end + 1);
    } else if (const qsizetype colon = text.lastIndexOf(':'); colon >= 0) {
        host = text.first(colon);
        rest = text.sliced(colon);
        if (host.contains(':')) return std::nullopt; // an IPv6 address needs its brackets
    }
    HostPort result;
    if (!rest.isEmpty()) {
        const QByteArrayView port = rest.sliced(1);
        if (!rest.startsWith(':')) return std::nullopt;
        if (wildcardPort && port == "*") {
            result.port = "*";
        } else {
            if (port.isEmpty() || port.size() > 5) return std::nullopt;
            for (const char c : port)
                if (c < '0' || c > '9') return std::nullopt;
            if (port.toInt() > 65535) return std::nullopt;
            result.port = port.toByteArray();
        }
    }
    if (host.endsWith('.')) host.chop(1);
    if (host.isEmpty()) return std::nullopt;
    for (const char c : host) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '-' || c == '.' || c == '_' || c == ':' || c == '%';
        if (!ok) return std::nullopt;
    }
    result.host = QString::fromLatin1(host).toLower();
    return result;
}

struct Origin {
    QString scheme; // lower-case
    HostPort hostPort;
};

// "scheme://host[:port]" (a browser's Origin header); nullopt when malformed.
std::optional<Origin> parseOrigin(QByteArrayView text, bool wildcardPort = false) {
    const qsizetype separator = text.indexOf("://");
    if (separator <= 0) return std::nullopt;
    static const QRegularExpression schemeSyntax(QStringLiteral("^[a-z][a-z0-9+.-]*$"));
    const QString scheme = QString::fromLatin1(text.first(separator)).toLower();
    if (!schemeSyntax.match(scheme).hasMatch()) return std::nullopt;
    const std::optional<HostPort> hostPort = splitHostPort(text.sliced(separator + 3), wildcardPort);
    if (!hostPort) return std::nullopt;
    return Origin{scheme, *hostPort};
}

QString canonical(const Origin& origin) {
    const QString host = origin.hostPort.host.contains(':')
                             ? QLatin1Char('[') + origin.hostPort.host + QLatin1Char(']')
                             : origin.hostPort.host;
    QString text = origin.scheme + QStringLiteral("://") + host;
    if (!origin.hostPort.port.isEmpty()) text += QLatin1Char(':') + QString::fromLatin1(origin.hostPort.port);
    return text;
}

bool isLoopbackName(const QString& host) {
    if (host == QLatin1String("localhost")) return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

bool headerRepeated(const HttpRequest& request, const QByteArray& name) {
    int count = 0;
    for (const auto& [key, value] : request.headers)
        count += key == name ? 1 : 0;
    return count > 1;
}

// A list of header names ("authorization, content-type, x-stainless-os"): RFC 9110 tokens only.
bool isHeaderNameList(const QByteArray& text) {
    static const QRegularExpression syntax(
        QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\\s*,\\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$"));
    return syntax.match(QString::fromLatin1(text)).hasMatch();
}

QPair<QByteArray, QByteArray> header(const char* name, const QByteArray& value) {
    return {QByteArray(name), value};
}

ApiError refusal(int status, const QString& message, const QString& code) {
    return ApiError{status, message, QStringLiteral("invalid_request_error"), QString(), code};
}

} // namespace

QString FrontDoor::originPatternError(const QString& origin) {
    const QString text = origin.trimmed();
    if (text == QLatin1String("*") || text == QLatin1String("null")) return {};
    QString withoutSlash = text;
    if (withoutSlash.endsWith(QLatin1Char('/'))) withoutSlash.chop(1);
    if (!parseOrigin(withoutSlash.toUtf8(), /*wildcardPort=*/true))
        return QObject::tr("'%1' is not an origin: write it as scheme://host or scheme://host:port "
                           "(e.g. http://localhost:3000; port * for any port).")
            .arg(text);
    return {};
}

QString FrontDoor::hostNameError(const QString& host) {
    const QString text = host.trimmed();
    if (text == QLatin1String("*")) return {};
    const std::optional<HostPort> parsed = splitHostPort(text.toUtf8());
    if (!parsed || !parsed->port.isEmpty())
        return QObject::tr("'%1' is not a host name: write the name alone, without a scheme or a port "
                           "(e.g. hearth.lan).")
            .arg(text);
    return {};
}

QStringList FrontDoor::splitList(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

void FrontDoor::setAllowedOrigins(const QStringList& origins) {
    allowedOrigins_.clear();
    for (const QString& entry : origins) {
        QString text = entry.trimmed();
        if (text.endsWith(QLatin1Char('/'))) text.chop(1);
        if (text == QLatin1String("*") || text == QLatin1String("null")) {
            allowedOrigins_.append(text);
        } else if (const std::optional<Origin> origin = parseOrigin(text.toUtf8(), /*wildcardPort=*/true)) {
            allowedOrigins_.append(canonical(*origin));
        }
    }
}

void FrontDoor::setAllowedHosts(const QStringList& hosts) {
    allowedHosts_.clear();
    for (const QString& entry : hosts) {
        const QString text = entry.trimmed();
        if (text == QLatin1String("*")) {
            allowedHosts_.append(text);
        } else if (const std::optional<HostPort> parsed = splitHostPort(text.toUtf8())) {
            allowedHosts_.append(parsed->host);
        }
    }
}

bool FrontDoor::hostAllowed(const QByteArray& host) const {
    const std::optional<HostPort> parsed = splitHostPort(host);
    if (!parsed) return false;
    if (isLoopbackName(parsed->host)) return true;
    const QHostAddress address(parsed->host);
    if (!address.isNull() && !listenAddress_.isNull() && address == listenAddress_ &&
        listenAddress_ != QHostAddress::Any && listenAddress_ != QHostAddress::AnyIPv4 &&
        listenAddress_ != QHostAddress::AnyIPv6)
        return true;
    return allowedHosts_.contains(QLatin1String("*")) || allowedHosts_.contains(parsed->host);
}

bool FrontDoor::originAllowed(const QByteArray& origin, const QByteArray& host) const {
    if (allowedOrigins_.contains(QLatin1String("*"))) return true;
    if (origin == "null") return allowedOrigins_.contains(QLatin1String("null"));
    const std::optional<Origin> parsed = parseOrigin(origin);
    if (!parsed) return false;
    // The server's own origin: a page this very host and port served (the Host was checked).
    const std::optional<HostPort> ownHost = splitHostPort(host);
    if (ownHost && parsed->scheme == QLatin1String("http") && parsed->hostPort.host == ownHost->host &&
        parsed->hostPort.port == ownHost->port)
        return true;
    const QString exact = canonical(*parsed);
    Origin anyPort = *parsed;
    anyPort.hostPort.port = "*";
    return allowedOrigins_.contains(exact) || allowedOrigins_.contains(canonical(anyPort));
}

FrontDoorDecision FrontDoor::screen(const HttpRequest& request) const {
    FrontDoorDecision decision;
    const auto refuse = [&decision](int status, const QString& message, const QString& code) {
        decision.kind = FrontDoorDecision::Kind::Refuse;
        decision.error = refusal(status, message, code);
        return decision;
    };

    // Host: a browser always sends the name it looked up; only this computer's are served.
    const QByteArray host = request.header("host");
    if (headerRepeated(request, "host"))
        return refuse(400, QObject::tr("The request has more than one Host header."),
                      QStringLiteral("bad_host"));
    if (host.isEmpty() && request.version != "HTTP/1.0")
        return refuse(400, QObject::tr("The request has no Host header (HTTP/1.1 requires one)."),
                      QStringLiteral("bad_host"));
    if (!host.isEmpty() && !hostAllowed(host))
        return refuse(403,
                      QObject::tr("Requests for the host '%1' are refused: the server answers only to this "
                                  "computer's loopback names (localhost, 127.0.0.1, [::1]). Allow another "
                                  "name with --allow-host NAME, or in Hearth's settings.")
                          .arg(QString::fromLatin1(host)),
                      QStringLiteral("host_not_allowed"));

    // Origin: sent by browsers with every cross-site request (and same-site POSTs).
    const QByteArray origin = request.header("origin");
    if (headerRepeated(request, "origin"))
        return refuse(400, QObject::tr("The request has more than one Origin header."),
                      QStringLiteral("origin_not_allowed"));
    if (!origin.isEmpty()) {
        if (!originAllowed(origin, host))
            return refuse(403,
                          QObject::tr("Requests from the web page at '%1' are refused. Allow that origin "
                                      "with --allow-origin ORIGIN, or in Hearth's settings (Local API "
                                      "server, allowed web pages).")
                              .arg(QString::fromLatin1(origin)),
                          QStringLiteral("origin_not_allowed"));
        decision.headers.append(header("Access-Control-Allow-Origin", origin));
        decision.headers.append(header("Vary", "Origin"));
    }

    if (request.method == "OPTIONS") {
        decision.kind = FrontDoorDecision::Kind::Preflight;
        decision.headers.append(header("Allow", "GET, POST, OPTIONS"));
        if (!origin.isEmpty()) {
            decision.headers.append(header("Access-Control-Allow-Methods", "GET, POST, OPTIONS"));
            const QByteArray wanted = request.header("access-control-request-headers");
            decision.headers.append(
                {"Access-Control-Allow-Headers",
                 isHeaderNameList(wanted) ? wanted : QByteArray("Authorization, Content-Type")});
            decision.headers.append(header("Access-Control-Max-Age", "600"));
            // Chrome asks before a public page may reach a private address (Private Network Access).
            if (request.header("access-control-request-private-network").toLower() == "true")
                decision.headers.append(header("Access-Control-Allow-Private-Network", "true"));
        }
        return decision;
    }

    // A body is JSON: text/plain, form data and the like are what pages send without a preflight.
    if (request.method == "POST" || !request.body.isEmpty()) {
        const QByteArray contentType = request.header("content-type");
        const QByteArray mediaType = contentType.split(';').first().trimmed().toLower();
        if (mediaType != "application/json") {
            decision.kind = FrontDoorDecision::Kind::Refuse; // an allowed page may read why
            decision.error = refusal(
                415,
                QObject::tr("The request body must be JSON sent with \"Content-Type: application/json\" "
                            "(this request's Content-Type is '%1').")
                    .arg(contentType.isEmpty() ? QStringLiteral("none") : QString::fromLatin1(contentType)),
                QStringLiteral("unsupported_media_type"));
            return decision;
        }
    }
    return decision;
}

} // namespace hearth::server
