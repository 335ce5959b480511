#include "app/gui/translations.h"
#include <QCoreApplication>
#include <QLocale>
#include <QTranslator>

namespace hearth::app {

namespace {
const QString kTranslatorName = QStringLiteral("hearthTranslator");
} // namespace

bool installTranslations(QCoreApplication& application, const QString& language) {
    auto* translator = new QTranslator(&application);
    translator->setObjectName(kTranslatorName);
    const QString directory = QStringLiteral(":/i18n");
    const QLocale locale = language.isEmpty() ? QLocale() : QLocale(language);
    const bool loaded = translator->load(locale, QStringLiteral("hearth"), QStringLiteral("_"), directory) ||
                        translator->load(QStringLiteral("hearth_en"), directory);
    if (!loaded) {
        delete translator;
        return false;
    }
    // The one before goes once the new one is in: QEvent::LanguageChange then reaches every
    // object (a QML engine retranslates on it).
    const QList<QTranslator*> before =
        application.findChildren<QTranslator*>(kTranslatorName, Qt::FindDirectChildrenOnly);
    QCoreApplication::installTranslator(translator);
    for (QTranslator* old : before) {
        if (old == translator) continue;
        QCoreApplication::removeTranslator(old);
        delete old;
    }
    return true;
}

} // namespace hearth::app
