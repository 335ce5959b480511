// The kernel dispatch panel's list: in-place updates (rows inserted and removed, never a reset),
// histogram trimming, shares.
#include "app/metrics/kernel_metrics_model.h"
#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

using namespace hearth::app;

class TestKernelMetricsModel : public QObject {
    Q_OBJECT

    static KernelStats stats(const QString& op, quint64 calls, quint64 ns, QList<quint64> histogram) {
        KernelStats s;
        s.operation = op;
        s.type = "q4_0";
        s.isa = "avx2";
        s.calls = calls;
        s.totalNs = ns;
        s.histogram = histogram;
        s.histogram.resize(32);
        return s;
    }

private slots:
    void updatesInPlaceWhenTheSameKernelsRun() {
        KernelMetricsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.update({stats("matvec", 10, 3000, {0, 0, 4, 6}), stats("attention", 2, 1000, {0, 2})});
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0).data(KernelMetricsModel::OperationRole).toString(),
                 QStringLiteral("attention"));
        model.update({stats("matvec", 20, 6000, {0, 0, 8, 12}), stats("attention", 4, 2000, {0, 4})});
        QCOMPARE(inserted.count(), 2); // same rows: updated in place, the view keeps its delegates
        QCOMPARE(changed.count(), 2);
        QCOMPARE(model.index(1).data(KernelMetricsModel::CallsRole).toULongLong(), 20ull);
        // Another set of kernels: the gone ones removed, the new one inserted, in order; never a
        // reset (which rebuilt every delegate of the panel's list on the GUI thread).
        model.update({stats("matmat", 1, 10, {1}), stats("matvec", 30, 9000, {0, 0, 12, 18})});
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 3);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0).data(KernelMetricsModel::OperationRole).toString(), QStringLiteral("matmat"));
        QCOMPARE(model.index(1).data(KernelMetricsModel::CallsRole).toULongLong(), 30ull);
        model.update({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(reset.count(), 0);
    }

    void histogramIsTrimmedAndLabelled() {
        KernelMetricsModel model;
        model.update({stats("matvec", 10, 4000, {0, 0, 4, 0, 6}), stats("rms_norm", 10, 1000, {})});
        const QModelIndex matvec = model.index(0);
        QCOMPARE(matvec.data(KernelMetricsModel::OperationRole).toString(), QStringLiteral("matvec"));
        const QVariantList bars = matvec.data(KernelMetricsModel::HistogramRole).toList();
        QCOMPARE(bars.size(), 3); // buckets 2..4
        QCOMPARE(bars[0].toDouble(), 4.0);
        QCOMPARE(bars[1].toDouble(), 0.0);
        QCOMPARE(bars[2].toDouble(), 6.0);
        QCOMPARE(matvec.data(KernelMetricsModel::HistogramRangeRole).toString(),
                 QStringLiteral("4 ns – 32 ns"));
        QCOMPARE(matvec.data(KernelMetricsModel::MeanLatencyRole).toString(), QStringLiteral("400 ns"));
        QCOMPARE(matvec.data(KernelMetricsModel::ShareRole).toDouble(), 0.8);
        QVERIFY(model.index(1).data(KernelMetricsModel::HistogramRole).toList().isEmpty());
    }

    // A count past a million reached QML as a double and showed as "1.19801e+06".
    void callsAreShownInDigitGroups() {
        const QLocale previous;
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        KernelMetricsModel model;
        model.update({stats("matvec", 1'198'010, 4000, {1})});
        QCOMPARE(model.index(0).data(KernelMetricsModel::CallsTextRole).toString(),
                 QStringLiteral("1,198,010"));
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(model.index(0).data(KernelMetricsModel::CallsTextRole).toString(),
                 QStringLiteral("1.198.010"));
        QLocale::setDefault(previous);
    }

    void formatsDurations_data() {
        QTest::addColumn<double>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("ns") << 512.0 << "512 ns";
        QTest::newRow("us") << 2500.0 << "2.5 µs";
        QTest::newRow("ms") << 65'000'000.0 << "65 ms";
        QTest::newRow("s") << 2.5e9 << "2.50 s";
    }
    void formatsDurations() {
        QFETCH(double, ns);
        QFETCH(QString, text);
        QCOMPARE(formatNanoseconds(ns), text);
    }
};

QTEST_MAIN(TestKernelMetricsModel)
#include "test_kernel_metrics_model.moc"
