#pragma once
// The network access every download shares: the system's proxy settings
// (http_proxy / https_proxy / no_proxy on Linux) and redirects that never
// go from https to http.
#include <QNetworkAccessManager>
#include <memory>

namespace hearth::download {

std::unique_ptr<QNetworkAccessManager> makeNetworkAccess(QObject* parent = nullptr);

} // namespace hearth::download
