#include "app/models/model_names.h"
#include <QFileInfo>

namespace hearth::app {

QString displayName(const engine::ModelInfo& info) {
    const QString name = QString::fromStdString(info.name).trimmed();
    const QString architecture = QString::fromStdString(info.architecture);
    if (!name.isEmpty() && name.compare(architecture, Qt::CaseInsensitive) != 0) return name;
    return QFileInfo(QString::fromStdString(info.path)).completeBaseName();
}

} // namespace hearth::app
