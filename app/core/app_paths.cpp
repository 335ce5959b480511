#include "app/core/app_paths.h"
#include <QStandardPaths>

namespace hearth::app {

AppPaths AppPaths::resolve(const QString& dataDirOption, const QString& settingsOption) {
    AppPaths paths;
    paths.dataDir = dataDirOption;
    if (paths.dataDir.isEmpty()) paths.dataDir = qEnvironmentVariable("HEARTH_DATA_DIR");
    if (paths.dataDir.isEmpty())
        paths.dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    paths.settingsFile = settingsOption;
    if (paths.settingsFile.isEmpty()) paths.settingsFile = qEnvironmentVariable("HEARTH_SETTINGS_FILE");
    return paths;
}

} // namespace hearth::app
