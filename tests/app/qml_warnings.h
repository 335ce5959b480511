#pragma once
// Makes every QML warning (binding loops, type errors, undefined properties, console.warn) a
// failure of the test function that is running, so that a warning the window starts to print
// cannot go unnoticed. Install it once the test logger runs (initTestCase; in a Quick Test,
// failQuickTestsOnQmlWarnings); messages still go on to the logger. A warning a test expects
// fails it all the same: QTest::ignoreMessage and TestCase.ignoreWarning do not let it through.
#include <QByteArray>
#include <QMetaObject>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QString>
#include <QTest>
#include <QUrl>
#include <QtGlobal>
#include <memory>

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

// Which warnings fail the test: QML's, or every warning (Quick Tests: their functions run
// nothing but QML and what it calls).
enum class FailOn { QmlWarnings, EveryWarning };
inline FailOn& failingWarnings() {
    static FailOn which = FailOn::QmlWarnings;
    return which;
}

// Installing twice would make the handler its own "previous" and recurse on the first
// warning: later calls do nothing.
inline void failOnQmlWarnings(FailOn which = FailOn::QmlWarnings) {
    static bool installed = false;
    if (installed) return;
    installed = true;
    failingWarnings() = which;
    previousMessageHandler() = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& context,
                                                         const QString& message) {
        if (QtMessageHandler previous = previousMessageHandler()) previous(type, context, message);
        // Outside a test function (start-up, shutdown) there is no test to fail.
        if (QTest::currentTestFunction() == nullptr) return;
        if (isQmlWarning(type, context, message))
            QTest::qFail(qPrintable(QStringLiteral("QML warning: ") + message), __FILE__, __LINE__);
        else if ((type == QtWarningMsg || type == QtCriticalMsg) && failingWarnings() == FailOn::EveryWarning)
            QTest::qFail(qPrintable(QStringLiteral("warning: ") + message), __FILE__, __LINE__);
    });
}

// For a Quick Test setup's qmlEngineAvailable. Qt Quick Test starts its logger when the first
// TestCase runs, after the setup's hooks, and the logger's message handler does not pass
// messages on to the one installed before it: a handler installed in applicationAvailable never
// saw a warning of a Quick Test function (they printed and passed). This starts the logger
// first, as a TestCase does through its TestResult (the TestCases' own start is then a no-op),
// and installs the handler above it, failing on every warning (as TestCase.failOnWarning(/.?/)
// in each init() did, from initTestCase to cleanupTestCase). Once per run; later calls do nothing.
inline void failQuickTestsOnQmlWarnings(QQmlEngine& engine) {
    static bool started = false;
    if (started) return;
    started = true;
    QQmlComponent component(&engine);
    component.setData("import QtTest\nTestResult {}", QUrl());
    const std::unique_ptr<QObject> result(component.create());
    if (!result || !QMetaObject::invokeMethod(result.get(), "startLogging"))
        qFatal("cannot start Qt Quick Test's logger: %s", qPrintable(component.errorString()));
    failOnQmlWarnings(FailOn::EveryWarning);
}

} // namespace hearth::test
