// Streaming text is handed to the GUI at most once per interval, the first piece at once; a
// long paragraph slows the hand-overs, and a blank line brings them back to the interval.
// Every test runs on a simulated clock (time points passed in), so none depends on how fast
// the machine is.
#include "app/models/piece_batcher.h"
#include <QTest>
#include <vector>

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

    // The worker's loop (add each piece, hand over when due, the rest at the end) on a simulated
    // clock, at generation speeds from far faster to far slower than the interval: the first
    // piece at once, then hand-overs at least an interval apart (only the last may come
    // sooner), so never more than elapsed / interval + 2; faster than the interval, fewer
    // hand-overs than tokens; slower, every token as it comes. Nothing is lost or reordered.
    void handOversAtAnyGenerationSpeed_data() {
        QTest::addColumn<int>("gapMicroseconds"); // between two tokens
        for (int gap : {100, 1000, 20000, 49000, 50000, 51000, 200000})
            QTest::newRow(qPrintable(QString("%1 us per token").arg(gap))) << gap;
    }
    void handOversAtAnyGenerationSpeed() {
        QFETCH(int, gapMicroseconds);
        constexpr auto kInterval = 50ms;
        constexpr int kTokens = 400;
        PieceBatcher batcher(kInterval);
        const auto t0 = PieceBatcher::Clock::now();
        const auto timeOf = [&](int token) {
            return t0 + std::chrono::microseconds(gapMicroseconds) * token;
        };
        QString handedOver, generated;
        std::vector<PieceBatcher::Clock::time_point> times;
        for (int i = 0; i < kTokens; ++i) {
            const std::string piece = i % 40 == 39 ? "w\n\n" : "w "; // short paragraphs: the base interval
            generated += QString::fromStdString(piece);
            batcher.add(piece);
            if (batcher.due(timeOf(i))) {
                handedOver += batcher.take(timeOf(i));
                times.push_back(timeOf(i));
            }
        }
        const auto end = timeOf(kTokens - 1);
        if (!batcher.empty()) {
            handedOver += batcher.take(end);
            times.push_back(end);
        }
        QCOMPARE(handedOver, generated);
        QVERIFY(times.front() == t0);
        for (size_t i = 1; i + 1 < times.size(); ++i)
            QVERIFY2(times[i] - times[i - 1] >= kInterval, qPrintable(QString("hand-over %1").arg(i)));
        const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(end - t0);
        QVERIFY2(times.size() <= static_cast<size_t>(elapsed / kInterval) + 2,
                 qPrintable(QString("%1 hand-overs in %2 ms").arg(times.size()).arg(elapsed.count())));
        if (std::chrono::microseconds(gapMicroseconds) < kInterval)
            QVERIFY(times.size() < static_cast<size_t>(kTokens));
        else
            QCOMPARE(times.size(), static_cast<size_t>(kTokens));
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
