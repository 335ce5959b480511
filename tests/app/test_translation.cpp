// The app in German, chosen as a desktop session chooses it: LANG=de_DE.UTF-8 and nothing else.
// The real window over a real backend with stories260K loaded speaks German on every page, the
// plural forms are German ("1 Thread", "2 Threads"), and no text is clipped: at 800x600 and
// 1280x800, with the metrics panel open and closed, every text fits its item (the longer German
// words are what a layout sized for English cuts off) and lies inside the area that shows it.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/gui/main_window.h"
#include "app/gui/translations.h"
#include "app/models/model_catalog.h"
#include "app/models/model_controller.h"
#include "app/settings/app_settings.h"
#include "tests/app/qml_warnings.h"
#include "tests/app/quick_items.h"
#include "tests/support/test_support.h"

#include <QFile>
#include <QGuiApplication>
#include <QLocale>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>
#include <QtQuickTest/quicktest.h>
#include <memory>

using namespace hearth;
using hearth::test::findByName;

namespace {

bool isTextItem(const QQuickItem* item) {
    // Text, Label, TextEdit, TextField and TextArea; a Control's own `text` (a button's) is drawn by
    // one of these inside it.
    return item->inherits("QQuickText") || item->inherits("QQuickTextEdit") ||
           item->inherits("QQuickTextInput");
}

// The nearest ancestor that cuts its children off (a clipping item, a list's viewport), in scene
// coordinates; the window where there is none.
QRectF visibleArea(const QQuickItem* item, const QQuickWindow* window) {
    for (const QQuickItem* parent = item->parentItem(); parent; parent = parent->parentItem())
        if (parent->clip()) return parent->mapRectToScene(QRectF(0, 0, parent->width(), parent->height()));
    return QRectF(QPointF(0, 0), window->size());
}

void collectTexts(QQuickItem* item, QList<QQuickItem*>& out) {
    if (!item || !item->isVisible() || item->opacity() == 0) return;
    if (isTextItem(item) && !item->property("text").toString().isEmpty()) out.append(item);
    for (QQuickItem* child : item->childItems())
        collectTexts(child, out);
}

// Texts that show data (a path), not the app's words, and elide it where it is long.
const QStringList kElidedByDesign{QStringLiteral("modelsFolderPath"), QStringLiteral("modelCardPath")};

QString describe(const QQuickItem* text) {
    return QStringLiteral("\"%1\" (%2)").arg(text->property("text").toString().left(60), text->objectName());
}

} // namespace

class TestTranslation : public QObject {
    Q_OBJECT

    QString dir_;
    std::unique_ptr<app::HearthBackend> backend_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;

    QString textOf(const char* objectName) {
        QQuickItem* item = findByName(window_->contentItem(), QString::fromLatin1(objectName));
        return item ? item->property("text").toString() : QStringLiteral("<no %1>").arg(objectName);
    }

    void showPage(const QString& page, bool metricsOpen, QSize size) {
        window_->setProperty("page", page);
        window_->setProperty("metricsOpen", metricsOpen);
        window_->resize(size);
        QTRY_COMPARE(window_->contentItem()->size(), QSizeF(size));
        QVERIFY(QQuickTest::qWaitForPolish(window_));
    }

    // Every shown text fits its item (a single line its width, wrapped lines theirs) and is not
    // elided, and lies inside what shows it: the window, or the clipping item around it. Returns
    // what does not, each line saying where.
    QStringList clippedTexts(const QString& where) {
        QList<QQuickItem*> texts;
        collectTexts(window_->contentItem(), texts);
        if (texts.size() < 10) return {where + QStringLiteral(": only %1 texts shown").arg(texts.size())};
        QStringList problems;
        for (QQuickItem* text : texts) {
            // A path is cut in the middle where it is long, by design; the app's words never are.
            if (kElidedByDesign.contains(text->objectName())) continue;
            const bool wraps = text->property("wrapMode").toInt() != 0;
            const qreal needed =
                wraps ? text->property("contentWidth").toReal() : text->property("implicitWidth").toReal();
            const qreal padding =
                text->property("leftPadding").toReal() + text->property("rightPadding").toReal();
            if (needed > text->width() + 1 && !(wraps && needed <= text->width() + padding + 1))
                problems << QStringLiteral("%1 needs %2 px, has %3")
                                .arg(describe(text))
                                .arg(needed)
                                .arg(text->width());
            if (text->property("truncated").toBool())
                problems << describe(text) + QStringLiteral(" is elided");
            const QRectF area = visibleArea(text, window_);
            const qreal shownWidth =
                wraps ? text->property("contentWidth").toReal() : qMin(needed, text->width());
            const QRectF drawn = text->mapRectToScene(QRectF(0, 0, shownWidth, text->height()));
            if (drawn.left() < area.left() - 1 || drawn.right() > area.right() + 1)
                problems << QStringLiteral("%1 spans x %2..%3, shown in %4..%5")
                                .arg(describe(text))
                                .arg(drawn.left())
                                .arg(drawn.right())
                                .arg(area.left())
                                .arg(area.right());
        }
        for (QString& problem : problems)
            problem = where + QStringLiteral(": ") + problem;
        return problems;
    }

private slots:
    void initTestCase() {
        app::prepareQuick();
        QVERIFY2(app::installTranslations(*QCoreApplication::instance()), "no translation loaded");
        test::failOnQmlWarnings();
        dir_ = QString::fromStdString(test::make_temp_dir("hearth-translation"));
        backend_ =
            std::make_unique<app::HearthBackend>(app::AppPaths{dir_ + "/data", dir_ + "/settings.ini"});
        backend_->settings()->setThreads(1);
        backend_->settings()->setTemperature(0.0);
        backend_->settings()->setMaxReplyTokens(40);
        engine_ = std::make_unique<QQmlApplicationEngine>();
        window_ = app::loadMainWindow(*engine_, *backend_);
        QVERIFY(window_ != nullptr);
        backend_->start();
        QTRY_VERIFY_WITH_TIMEOUT(backend_->chat()->ready(), 10000);
    }

    void cleanupTestCase() {
        engine_.reset();
        backend_.reset();
    }

    void theLanguageComesFromLang() {
        QCOMPARE(QLocale().language(), QLocale::German);
        QCOMPARE(QCoreApplication::translate("Main", "Settings"), QStringLiteral("Einstellungen"));
    }

    // Why a catalog was refused comes from free functions (the catalog's parser), translated in
    // their own context: German as well, as the models page shows it.
    void catalogErrorsAreGerman() {
        QCOMPARE(app::parseModelCatalog(QByteArray(R"({"version": 1})")).error,
                 QStringLiteral("der Katalog hat keine Liste „models“"));
        QCOMPARE(app::parseModelCatalog(QByteArray(R"({"version": 1, "models": [7]})")).error,
                 QStringLiteral("Eintrag 1: kein Objekt"));
    }

    void theWindowSpeaksGerman() {
        showPage(QStringLiteral("chat"), false, {1280, 800});
        QCOMPARE(textOf("newChatButton"), QStringLiteral("Neuer Chat"));
        QCOMPARE(textOf("nav_models"), QStringLiteral("Modelle"));
        QCOMPARE(textOf("nav_metrics"), QStringLiteral("Engine-Messwerte"));
        QCOMPARE(textOf("nav_settings"), QStringLiteral("Einstellungen"));
        QCOMPARE(textOf("welcomeTitle"), QStringLiteral("Kein Modell geladen"));
        QCOMPARE(textOf("composerHint"), QStringLiteral("Enter sendet · Umschalt+Enter für eine neue Zeile"));
    }

    // The first start's models page, with its offer of the demo model: nothing clipped either.
    void theDemoOfferFits() {
        QVERIFY(backend_->models()->offerDemo());
        QStringList problems;
        for (const QSize size : {QSize(800, 600), QSize(1280, 800)}) {
            showPage(QStringLiteral("models"), false, size);
            if (QTest::currentTestFailed()) return;
            QVERIFY(findByName(window_->contentItem(), QStringLiteral("demoOffer"))->isVisible());
            problems << clippedTexts(QStringLiteral("models at %1x%2").arg(size.width()).arg(size.height()));
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void pluralFormsAreGerman() {
        // The real messages, through the controllers that make them.
        const QUrl model =
            QUrl::fromLocalFile(QString::fromStdString(test::testdata("models/stories260K.gguf")));
        QVERIFY(!backend_->models()->loadDroppedFiles({model, model, model}));
        QCOMPARE(backend_->models()->errorMessage(),
                 QStringLiteral("3 Dateien wurden abgelegt: bitte immer nur eine Modelldatei ablegen"));
        QVERIFY(backend_->models()->loadDroppedFile(model));
        QTRY_VERIFY_WITH_TIMEOUT(backend_->models()->loaded() && !backend_->models()->busy(), 60000);
        QVERIFY2(backend_->models()->modelDetails().endsWith(QLatin1String("1 Thread")),
                 qPrintable(backend_->models()->modelDetails()));
        backend_->settings()->setThreads(2);
        QTRY_VERIFY_WITH_TIMEOUT(backend_->models()->modelDetails().endsWith(QLatin1String("2 Threads")),
                                 10000);
        QCOMPARE(QCoreApplication::translate("hearth::app::ChatController", "%n token(s)", nullptr, 1),
                 QStringLiteral("1 Token"));
        QCOMPARE(QCoreApplication::translate("hearth::app::ChatController", "%n token(s)", nullptr, 48),
                 QStringLiteral("48 Tokens"));
    }

    void nothingIsClipped() {
        // A model loaded and a reply written, so that every page shows what it shows in use.
        if (!backend_->models()->loaded()) {
            backend_->models()->loadDroppedFile(
                QUrl::fromLocalFile(QString::fromStdString(test::testdata("models/stories260K.gguf"))));
            QTRY_VERIFY_WITH_TIMEOUT(backend_->models()->loaded() && !backend_->models()->busy(), 60000);
        }
        QVERIFY(backend_->chat()->send(QStringLiteral("Es war einmal")));
        QTRY_VERIFY_WITH_TIMEOUT(backend_->chat()->generating(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!backend_->chat()->generating(), 60000);
        QStringList problems;
        for (const QSize size : {QSize(800, 600), QSize(1280, 800)}) {
            for (const QString& page :
                 {QStringLiteral("chat"), QStringLiteral("models"), QStringLiteral("settings")}) {
                for (const bool metricsOpen : {false, true}) {
                    showPage(page, metricsOpen, size);
                    if (QTest::currentTestFailed()) return;
                    problems << clippedTexts(QStringLiteral("%1 at %2x%3, metrics %4")
                                                 .arg(page)
                                                 .arg(size.width())
                                                 .arg(size.height())
                                                 .arg(metricsOpen ? "open" : "closed"));
                }
            }
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // A file the engine refuses: the engine's English names the file and the problem, inside the
    // app's German sentence. Last, since the error stays on the Models page.
    void loadErrorsAreGerman() {
        const QString path = dir_ + QStringLiteral("/kaputt.gguf");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray("GGUF").append(QByteArray(60, '\xff')));
        file.close();
        QSignalSpy failed(backend_->models(), &app::ModelController::loadFailed);
        QVERIFY(backend_->models()->loadDroppedFile(QUrl::fromLocalFile(path)));
        QVERIFY(failed.wait(30000));
        const QString shown = backend_->models()->errorMessage();
        QVERIFY2(shown.startsWith(QStringLiteral("Das Modell konnte nicht geladen werden: ")),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("kaputt.gguf")), qPrintable(shown));
        QCOMPARE(failed.constFirst().constFirst().toString(), shown);
    }

    // Settings → Language, chosen with the keyboard: English at once, without a restart, then
    // German, then the system's again (German here); the choice is kept in the settings file.
    void theLanguageSettingSwitchesAtOnce() {
        showPage(QStringLiteral("settings"), false, {1280, 800});
        app::AppSettings* settings = backend_->settings();
        QCOMPARE(settings->language(), QString());
        QQuickItem* combo = findByName(window_->contentItem(), QStringLiteral("languageCombo"));
        QVERIFY(combo);
        combo->forceActiveFocus(Qt::TabFocusReason);
        QTest::keyClick(window_, Qt::Key_Down);
        QCOMPARE(settings->language(), QStringLiteral("en"));
        QTRY_COMPARE(textOf("nav_settings"), QStringLiteral("Settings"));
        QCOMPARE(textOf("nav_models"), QStringLiteral("Models"));
        settings->flush();
        QCOMPARE(app::AppSettings(dir_ + "/settings.ini", dir_ + "/models").language(), QStringLiteral("en"));

        QTest::keyClick(window_, Qt::Key_Down);
        QCOMPARE(settings->language(), QStringLiteral("de"));
        QTRY_COMPARE(textOf("nav_settings"), QStringLiteral("Einstellungen"));
        settings->setLanguage(QStringLiteral("en"));
        QTRY_COMPARE(textOf("nav_models"), QStringLiteral("Models"));
        settings->setLanguage(QString());
        QTRY_COMPARE(textOf("nav_models"), QStringLiteral("Modelle"));
        QCOMPARE(QCoreApplication::translate("Main", "Settings"), QStringLiteral("Einstellungen"));
    }
};

int main(int argc, char** argv) {
    // Only LANG, as a desktop session sets it; the variables that would take precedence are unset.
    qunsetenv("LC_ALL");
    qunsetenv("LC_MESSAGES");
    qunsetenv("LANGUAGE");
    qputenv("LANG", "de_DE.UTF-8");
    QGuiApplication app(argc, argv);
    TestTranslation test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_translation.moc"
