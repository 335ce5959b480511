#pragma once
// Makes every QML warning (binding loops, type errors, undefined properties, console.warn) a
// failure of the test function that is running, so that a warning the window starts to print
// cannot go unnoticed. Install it once the test logger runs (initTestCase, or a Quick Test
// setup's qmlEngineAvailable); messages still go on to the logger.
#include <QByteArray>
#include <QString>
#include <QTest>
#include <QtGlobal>

namespace hearth::test {

inline bool isQmlWarning(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type != QtWarningMsg && type != QtCriticalMsg) return false;
    const QByteArray category = context.category ? QByteArray(context.category) : QByteArray();
    return category == "qml" || category == "js" || category.startsWith("qt.qml") ||
           message.contains(QLatin1String(".qml:")) || message.startsWith(QLatin1String("QML "));
}

inline QtMessageHandler& previousMessageHandler() {
    static QtMessageHandler previous = nullptr;
    return previous;
}

// Installing twice would make the handler its own "previous" and recurse on the first
// warning: later calls do nothing.
inline void failOnQmlWarnings() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    previousMessageHandler() =
        qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& context, const QString& message) {
            if (QtMessageHandler previous = previousMessageHandler()) previous(type, context, message);
            // Outside a test function (start-up, shutdown) there is no test to fail.
            if (isQmlWarning(type, context, message) && QTest::currentTestFunction() != nullptr)
                QTest::qFail(qPrintable(QStringLiteral("QML warning: ") + message), __FILE__, __LINE__);
        });
}

} // namespace hearth::test
