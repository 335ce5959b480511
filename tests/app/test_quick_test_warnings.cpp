// QML warnings fail Quick Test functions (qml_warnings.h, failQuickTestsOnQmlWarnings): the
// Quick Test runner of the QML components, run on a file whose functions make QML warn
// (qml_warning_check/tst_warnings.qml), fails those functions and passes the quiet one.
#include <QProcess>
#include <QTest>

class TestQuickTestWarnings : public QObject {
    Q_OBJECT
private slots:
    void warningsFailTheirTestFunctions() {
        QProcess runner;
        runner.setProcessChannelMode(QProcess::MergedChannels);
        runner.start(QStringLiteral(HEARTH_QML_COMPONENTS_RUNNER),
                     {QStringLiteral("-input"), QStringLiteral(HEARTH_QML_WARNING_CHECK)});
        QVERIFY(runner.waitForFinished(120000));
        const QString log = QString::fromUtf8(runner.readAll());
        qInfo().noquote() << log;
        QCOMPARE(runner.exitStatus(), QProcess::NormalExit);
        QCOMPARE(runner.exitCode(), 3); // Quick Test's exit code: the number of failures
        const QString prefix = QStringLiteral("hearth_qml_components::WarningCheck::");
        QVERIFY(log.contains(QStringLiteral("FAIL!  : ") + prefix +
                             "test_consoleWarning() QML warning: a deliberate warning"));
        QVERIFY(log.contains(QStringLiteral("FAIL!  : ") + prefix + "test_bindingError() QML warning: ") &&
                log.contains(QStringLiteral("noSuchProperty is not defined")));
        QVERIFY(log.contains(QStringLiteral("FAIL!  : ") + prefix + "test_bindingLoop() QML warning: ") &&
                log.contains(QStringLiteral("Binding loop detected")));
        QVERIFY(log.contains(QStringLiteral("PASS   : ") + prefix + "test_quiet()"));
    }
};

QTEST_GUILESS_MAIN(TestQuickTestWarnings)
#include "test_quick_test_warnings.moc"
