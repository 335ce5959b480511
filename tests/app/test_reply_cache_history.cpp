// The per-reply history behind the metrics panel's "reused vs computed" chart:
// each reply's numbers in order, the oldest dropped beyond the capacity, the
// latest and the peak for the chart's scale, and model signals a view relies on.
#include "app/metrics/reply_cache_history.h"
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;

class TestReplyCacheHistory : public QObject {
    Q_OBJECT

    static GenerationResult reply(int reused, int computed, bool restored = false) {
        GenerationResult r;
        r.stats.reused_tokens = reused;
        r.stats.computed_tokens = computed;
        r.stats.prompt_tokens = reused + computed;
        r.stats.generated_tokens = 7;
        r.resume.restored = restored;
        return r;
    }

private slots:
    void recordsEachReplyInOrder() {
        ReplyCacheHistory history;
        QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(history.count(), 0);
        QCOMPARE(history.peak(), 1);
        QSignalSpy changed(&history, &ReplyCacheHistory::changed);
        history.record(reply(0, 30));
        history.record(reply(28, 12, true));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(history.count(), 2);
        QCOMPARE(history.index(0).data(ReplyCacheHistory::ReusedRole).toInt(), 0);
        QCOMPARE(history.index(0).data(ReplyCacheHistory::ComputedRole).toInt(), 30);
        QCOMPARE(history.index(0).data(ReplyCacheHistory::RestoredRole).toBool(), false);
        QCOMPARE(history.index(1).data(ReplyCacheHistory::ReusedRole).toInt(), 28);
        QCOMPARE(history.index(1).data(ReplyCacheHistory::ComputedRole).toInt(), 12);
        QCOMPARE(history.index(1).data(ReplyCacheHistory::GeneratedRole).toInt(), 7);
        QCOMPARE(history.index(1).data(ReplyCacheHistory::RestoredRole).toBool(), true);
        QCOMPARE(history.index(1).data(ReplyCacheHistory::NumberRole).toInt(), 2);
        QCOMPARE(history.latestReused(), 28);
        QCOMPARE(history.latestComputed(), 12);
        QVERIFY(history.latestRestored());
        QCOMPARE(history.peak(), 40);
        QVERIFY(history.roleNames().values().contains("reused"));
        QVERIFY(history.roleNames().values().contains("computed"));
    }

    void keepsOnlyTheLastReplies() {
        ReplyCacheHistory history(3);
        QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (int i = 1; i <= 5; ++i)
            history.record(reply(i * 10, i));
        QCOMPARE(history.count(), 3);
        QCOMPARE(history.capacity(), 3);
        QCOMPARE(history.index(0).data(ReplyCacheHistory::ReusedRole).toInt(), 30); // 1 and 2 dropped
        QCOMPARE(history.index(0).data(ReplyCacheHistory::NumberRole).toInt(), 3);
        QCOMPARE(history.index(2).data(ReplyCacheHistory::ReusedRole).toInt(), 50);
        QCOMPARE(history.peak(), 55);
        history.clear();
        QCOMPARE(history.count(), 0);
        QCOMPARE(history.latestReused(), 0);
    }
};

QTEST_MAIN(TestReplyCacheHistory)
#include "test_reply_cache_history.moc"
