#include "app/models/demo_model.h"
#include <QDir>
#include <QFileInfo>

namespace hearth::app {

QString findDemoModel(const QString& applicationDir) {
    if (qEnvironmentVariableIsSet("HEARTH_DEMO_MODEL")) {
        const QString path = qEnvironmentVariable("HEARTH_DEMO_MODEL");
        return !path.isEmpty() && QFileInfo(path).isFile() ? QFileInfo(path).absoluteFilePath() : QString();
    }
    const QFileInfo file(
        QDir(applicationDir)
            .filePath(QStringLiteral("../share/hearth/models/") + QLatin1String(kDemoModelFileName)));
    return file.isFile() ? QDir::cleanPath(file.absoluteFilePath()) : QString();
}

} // namespace hearth::app
