#include "app/download/network_access.h"
#include <QNetworkProxyFactory>

namespace hearth::download {

std::unique_ptr<QNetworkAccessManager> makeNetworkAccess(QObject* parent) {
    QNetworkProxyFactory::setUseSystemConfiguration(true); // process-wide, and idempotent
    auto network = std::make_unique<QNetworkAccessManager>(parent);
    // Hugging Face answers /resolve/ with a redirect to its CDN.
    network->setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
    return network;
}

} // namespace hearth::download
