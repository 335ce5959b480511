#pragma once
// Human-readable numbers for the UI: "1.2 GB", "260K", "1.1B".
#include <QString>
#include <QtGlobal>

namespace hearth::app {

QString formatBytes(qint64 bytes);
QString formatCount(qint64 count);

} // namespace hearth::app
