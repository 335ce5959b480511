#include "app/gui/translations.h"
#include <QCoreApplication>
#include <QLocale>
#include <QTranslator>

namespace hearth::app {

bool installTranslations(QCoreApplication& application) {
    auto* translator = new QTranslator(&application);
    const QString directory = QStringLiteral(":/i18n");
    const bool loaded =
        translator->load(QLocale(), QStringLiteral("hearth"), QStringLiteral("_"), directory) ||
        translator->load(QStringLiteral("hearth_en"), directory);
    if (!loaded) {
        delete translator;
        return false;
    }
    QCoreApplication::installTranslator(translator);
    return true;
}

} // namespace hearth::app
