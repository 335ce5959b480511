#pragma once
// Where the app keeps its data. Tests and the end-to-end run point these at
// temporary places (--data-dir / --settings, or HEARTH_DATA_DIR /
// HEARTH_SETTINGS_FILE) so they never touch the user's own files.
#include <QString>

namespace hearth::app {

struct AppPaths {
    QString dataDir;      // the conversation database lives here
    QString settingsFile; // an INI file; empty: QSettings' standard place

    [[nodiscard]] QString databaseFile() const { return dataDir + QStringLiteral("/conversations.sqlite"); }
    // Saved KV states of conversations (instant resume), next to the database.
    [[nodiscard]] QString kvStateDir() const { return dataDir + QStringLiteral("/kv-states"); }
    [[nodiscard]] QString defaultModelsFolder() const { return dataDir + QStringLiteral("/models"); }

    // Command-line values win over the environment, which wins over the standard locations.
    static AppPaths resolve(const QString& dataDirOption, const QString& settingsOption);
    // The standard data folder under `genericDataDir` (~/.local/share): "<it>/Hearth". Qt's
    // AppDataLocation adds organization and application ("Hearth/Hearth", and so
    // ".../Hearth/Hearth/models"); a folder that already holds conversations there stays in use.
    static QString defaultDataDir(const QString& genericDataDir);
};

} // namespace hearth::app
