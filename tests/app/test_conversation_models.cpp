// The sidebar's models: the conversation list and its search filter, each under QAbstractItemModelTester.
#include "app/chat/conversation_list_model.h"
#include "app/chat/conversation_search_model.h"
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;

class TestConversationModels : public QObject {
    Q_OBJECT

    static ConversationRecord record(const QString& id, const QString& title, int minutesAgo) {
        const QDateTime t = QDateTime::currentDateTime().addSecs(-60 * minutesAgo);
        return {id, title, t, t};
    }

private slots:
    void sortsByLastActivity() {
        ConversationListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setConversations({record("a", "Old", 50), record("b", "New", 1), record("c", "Middle", 10)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.idAt(0), QStringLiteral("b"));
        QCOMPARE(model.idAt(1), QStringLiteral("c"));
        QCOMPARE(model.idAt(2), QStringLiteral("a"));
        QCOMPARE(model.index(0).data(ConversationListModel::TitleRole).toString(), QStringLiteral("New"));
    }

    void prependRenameTouchRemove() {
        ConversationListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy countSpy(&model, &ConversationListModel::countChanged);
        model.setConversations({record("a", "First", 30), record("b", "Second", 20)});
        model.prepend(record("c", "Third", 0));
        QCOMPARE(model.idAt(0), QStringLiteral("c"));
        QVERIFY(model.rename("a", "Renamed"));
        QCOMPARE(model.find("a")->title, QStringLiteral("Renamed"));
        QVERIFY(!model.rename("missing", "x"));

        QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
        QVERIFY(model.touch("a", QDateTime::currentDateTime().addSecs(5)));
        QCOMPARE(moved.count(), 1);
        QCOMPARE(model.idAt(0), QStringLiteral("a"));

        QVERIFY(model.remove("c"));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.indexOf("c"), -1);
        QVERIFY(countSpy.count() >= 3);
    }

    void period_data() {
        QTest::addColumn<int>("daysAgo");
        QTest::addColumn<QString>("period");
        QTest::newRow("today") << 0 << "Today";
        QTest::newRow("yesterday") << 1 << "Yesterday";
        QTest::newRow("this week") << 5 << "Previous 7 days";
        QTest::newRow("older") << 30 << "Older";
    }
    void period() {
        QFETCH(int, daysAgo);
        QFETCH(QString, period);
        const QDate today(2024, 5, 20);
        QCOMPARE(periodOf(QDateTime(today.addDays(-daysAgo), QTime(12, 0)), today), period);
    }

    void searchFiltersByTitle_data() {
        QTest::addColumn<QString>("search");
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("empty shows all") << "" << QStringList{"b", "c", "a"};
        QTest::newRow("case-insensitive") << "RUST" << QStringList{"b", "a"};
        QTest::newRow("no match") << "python" << QStringList{};
        QTest::newRow("trimmed") << "  lifetimes " << QStringList{"a"};
    }
    void searchFiltersByTitle() {
        QFETCH(QString, search);
        QFETCH(QStringList, ids);
        ConversationListModel model;
        ConversationSearchModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setConversations({record("a", "Rust lifetimes", 30), record("b", "Why rust?", 1),
                                record("c", "Dinner ideas", 10)});
        proxy.setSearchText(search);
        QStringList shown;
        for (int row = 0; row < proxy.rowCount(); ++row)
            shown << proxy.idAt(row);
        QCOMPARE(shown, ids);
        QCOMPARE(proxy.count(), ids.size());
    }

    void searchFollowsSourceChanges() {
        ConversationListModel model;
        ConversationSearchModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSearchText("plan");
        model.setConversations({record("a", "Trip plan", 5)});
        QCOMPARE(proxy.rowCount(), 1);
        model.prepend(record("b", "Other", 0));
        QCOMPARE(proxy.rowCount(), 1);
        model.rename("b", "Plan B");
        QCOMPARE(proxy.rowCount(), 2);
        model.remove("a");
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.idAt(0), QStringLiteral("b"));
    }
};

QTEST_MAIN(TestConversationModels)
#include "test_conversation_models.moc"
