#pragma once
// The app's translations (qrc:/i18n/hearth_<language>.qm): the one for the system's languages, or
// English, whose file holds the English plural forms ("1 thread", "2 threads").
class QCoreApplication;

namespace hearth::app {

// Installs the translator on the application; returns false when no translation could be loaded.
bool installTranslations(QCoreApplication& application);

} // namespace hearth::app
