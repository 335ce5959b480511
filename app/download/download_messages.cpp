#include "app/download/download_messages.h"
#include <QCoreApplication>

namespace hearth::download {

namespace {
// Free functions: their words are translated in one context. hearth-cli installs no
// translator, so it prints them in English.
struct DownloadMessages {
    Q_DECLARE_TR_FUNCTIONS(hearth::download::DownloadMessages)
};
} // namespace

QString formatByteCount(qint64 bytes) {
    if (bytes < 1000) return DownloadMessages::tr("%1 bytes").arg(bytes);
    const char* units[] = {"KB", "MB", "GB", "TB"};
    double value = double(bytes);
    int unit = -1;
    while (value >= 1000 && unit < 3) {
        value /= 1000;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 1 : 0).arg(QLatin1String(units[unit]));
}

QString formatTimeLeft(double seconds) {
    if (seconds < 0) return {};
    const qint64 whole = qint64(seconds + 0.5);
    if (whole >= 3600) return QStringLiteral("%1 h %2 min").arg(whole / 3600).arg(whole % 3600 / 60);
    if (whole >= 60) return QStringLiteral("%1 min %2 s").arg(whole / 60).arg(whole % 60);
    return QStringLiteral("%1 s").arg(whole);
}

QString describeProgress(qint64 received, qint64 total, double bytesPerSecond, double secondsLeft) {
    QString text = formatByteCount(received);
    if (total > 0)
        //: "12.3 MB of 400 MB (3%)": received, total, percent.
        text = DownloadMessages::tr("%1 of %2 (%3%)")
                   .arg(text, formatByteCount(total), QString::number(received * 100 / total));
    if (bytesPerSecond > 0) text += QStringLiteral(", %1/s").arg(formatByteCount(qint64(bytesPerSecond)));
    if (secondsLeft >= 0) text = DownloadMessages::tr("%1, %2 left").arg(text, formatTimeLeft(secondsLeft));
    return text;
}

QString describeNetworkError(QNetworkReply::NetworkError error, const QString& host) {
    switch (error) {
    case QNetworkReply::HostNotFoundError:
        return DownloadMessages::tr(
                   "no network, or the server %1 does not exist (its name could not be looked up)")
            .arg(host);
    case QNetworkReply::ConnectionRefusedError:
        return DownloadMessages::tr("could not connect to %1: the server refused the connection").arg(host);
    case QNetworkReply::RemoteHostClosedError:
        return DownloadMessages::tr("the server %1 closed the connection before the file was complete")
            .arg(host);
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError: // what a transfer timeout reports
        return DownloadMessages::tr("the server %1 stopped answering").arg(host);
    case QNetworkReply::SslHandshakeFailedError:
        return DownloadMessages::tr(
                   "the secure connection to %1 could not be established (certificate problem)")
            .arg(host);
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
        return DownloadMessages::tr("the network connection was lost");
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return DownloadMessages::tr("the system's proxy server could not be used");
    case QNetworkReply::ProtocolUnknownError:
        return DownloadMessages::tr("only http:// and https:// addresses can be downloaded");
    default:
        return DownloadMessages::tr("the download from %1 failed (network error %2)")
            .arg(host)
            .arg(int(error));
    }
}

QString describeHttpStatus(int status, const QString& reason) {
    switch (status) {
    case 401:
    case 403:
        return DownloadMessages::tr("the server refused access to the file (HTTP %1); it may need a login")
            .arg(status);
    case 404:
    case 410:
        return DownloadMessages::tr("the file was not found on the server (HTTP %1)").arg(status);
    case 429:
        return DownloadMessages::tr("the server is busy or limiting downloads (HTTP 429); try again later");
    default:
        if (status >= 500)
            return DownloadMessages::tr("the server had a problem (HTTP %1 %2)").arg(status).arg(reason);
        return DownloadMessages::tr("the server answered HTTP %1 %2").arg(status).arg(reason);
    }
}

bool isWorthReconnecting(QNetworkReply::NetworkError error) {
    switch (error) {
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProtocolFailure: // e.g. a body shorter than its Content-Length
        return true;
    default:
        return false;
    }
}

} // namespace hearth::download
