#pragma once
// The window icon, painted from the same shapes as resources/hearth.svg
// (Qt's SVG module is not needed for it).
#include <QIcon>

namespace hearth::app {

QIcon appIcon();

} // namespace hearth::app
