#include "app/platform/app_paths.h"
#include <QFileInfo>
#include <QStandardPaths>

namespace hearth::app {

AppPaths AppPaths::resolve(const QString& dataDirOption, const QString& settingsOption) {
    AppPaths paths;
    paths.dataDir = dataDirOption;
    if (paths.dataDir.isEmpty()) paths.dataDir = qEnvironmentVariable("HEARTH_DATA_DIR");
    if (paths.dataDir.isEmpty())
        paths.dataDir = defaultDataDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation));
    paths.settingsFile = settingsOption;
    if (paths.settingsFile.isEmpty()) paths.settingsFile = qEnvironmentVariable("HEARTH_SETTINGS_FILE");
    return paths;
}

QString AppPaths::defaultDataDir(const QString& genericDataDir) {
    const QString dataDir = genericDataDir + QStringLiteral("/Hearth");
    // Earlier versions kept their data one level deeper: keep the user's conversations.
    const AppPaths earlier{dataDir + QStringLiteral("/Hearth"), {}};
    const AppPaths current{dataDir, {}};
    if (QFileInfo::exists(earlier.databaseFile()) && !QFileInfo::exists(current.databaseFile()))
        return earlier.dataDir;
    return dataDir;
}

} // namespace hearth::app
