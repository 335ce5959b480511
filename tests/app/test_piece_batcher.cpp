// Streaming text is handed to the GUI at most once per interval, the first piece at once; a
// long paragraph slows the hand-overs, and a blank line brings them back to the interval.
#include "app/core/piece_batcher.h"
#include <QTest>

using namespace hearth::app;
using namespace std::chrono_literals;

class TestPieceBatcher : public QObject {
    Q_OBJECT
private slots:
    void firstPieceIsDueAtOnce() {
        PieceBatcher batcher(33ms);
        const auto t0 = PieceBatcher::Clock::now();
        QVERIFY(!batcher.due(t0)); // nothing to send
        batcher.add("Once");
        QVERIFY(batcher.due(t0));
        QCOMPARE(batcher.take(t0), QStringLiteral("Once"));
        QVERIFY(batcher.empty());
    }

    void laterPiecesWaitForTheInterval() {
        PieceBatcher batcher(33ms);
        const auto t0 = PieceBatcher::Clock::now();
        batcher.add("a");
        (void)batcher.take(t0);
        batcher.add(" upon");
        batcher.add(" a time");
        QVERIFY(!batcher.due(t0 + 10ms));
        QVERIFY(!batcher.due(t0 + 32ms));
        QVERIFY(batcher.due(t0 + 33ms));
        QCOMPARE(batcher.take(t0 + 33ms), QStringLiteral(" upon a time"));
        batcher.add("!");
        QVERIFY(!batcher.due(t0 + 50ms));
        QVERIFY(batcher.due(t0 + 70ms));
    }

    // 1000 tokens/s for one simulated second, in short paragraphs: at most ~31 hand-overs.
    void ratesStayBelowThirtyPerSecond() {
        PieceBatcher batcher(33ms);
        const auto t0 = PieceBatcher::Clock::now();
        int flushes = 0;
        for (int ms = 0; ms < 1000; ++ms) {
            batcher.add(ms % 100 == 99 ? "x\n\n" : "x");
            if (batcher.due(t0 + std::chrono::milliseconds(ms))) {
                (void)batcher.take(t0 + std::chrono::milliseconds(ms));
                ++flushes;
            }
        }
        QVERIFY2(flushes <= 31, qPrintable(QString::number(flushes)));
        QVERIFY(flushes >= 29);
    }

    void longParagraphsSlowTheHandOvers() {
        PieceBatcher batcher(50ms);
        QCOMPARE(batcher.interval(), 50ms);
        batcher.add(std::string(PieceBatcher::kLongParagraph - 1, 'x'));
        QCOMPARE(batcher.interval(), 50ms);
        batcher.add("x");
        QCOMPARE(batcher.interval(), 100ms);
        batcher.add("\n"); // a single line break does not end the paragraph
        batcher.add(std::string(PieceBatcher::kLongParagraph, 'x'));
        QCOMPARE(batcher.interval(), 150ms);
        batcher.add(std::string(10 * PieceBatcher::kLongParagraph, 'x'));
        QCOMPARE(batcher.interval(), 200ms); // at most kMaxSlowdown times
        const auto t0 = PieceBatcher::Clock::now();
        (void)batcher.take(t0);
        batcher.add("y");
        QVERIFY(!batcher.due(t0 + 150ms));
        QVERIFY(batcher.due(t0 + 200ms));
        batcher.add("\n\nNew paragraph");
        QCOMPARE(batcher.interval(), 50ms);
        QVERIFY(batcher.due(t0 + 50ms));
    }

    void keepsUtf8Whole() {
        PieceBatcher batcher(33ms);
        batcher.add("caf\xC3\xA9 ");
        batcher.add("\xF0\x9F\x94\xA5");
        QCOMPARE(batcher.take(), QString::fromUtf8("café 🔥"));
    }
};

QTEST_MAIN(TestPieceBatcher)
#include "test_piece_batcher.moc"
