#pragma once
// The app's translations (qrc:/i18n/hearth_<language>.qm): the one for the language chosen in the
// settings or the system's languages, or English, whose file holds the English plural forms
// ("1 thread", "2 threads").
#include <QString>

class QCoreApplication;

namespace hearth::app {

// Installs the translator for `language` ("de", "en"; empty: the system's languages) on the
// application, in place of the one installed before; returns false when none could be loaded
// (the one before then stays).
bool installTranslations(QCoreApplication& application, const QString& language = {});

} // namespace hearth::app
