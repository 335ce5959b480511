#pragma once
// One row per kernel that has run (operation, weight type, kernel and its tier): how often and
// how long, with its latency histogram, for the metrics panel; and one per kind of operation a
// GPU has run, its dispatches and GPU time, marked as the GPU's.
#include <QAbstractListModel>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

struct KernelStats {
    QString operation; // "matvec", "matmat", ...
    QString type;      // weight type, "q4_K", "f32", ...
    QString isa;       // the kernel's tier: "avx2", "scalar"; a GPU's row: "GPU"
    quint64 calls = 0; // a GPU's row: dispatches
    quint64 totalNs = 0;
    QList<quint64> histogram; // calls per power-of-two nanosecond bucket (2^b .. 2^(b+1)); none for a GPU
    QString kernel; // the kernel's name: "gemm_q4_K_q8_K"; a GPU's row: its candidate ("matmul_vec"), or the
                    // operation
    bool gpu = false; // an operation the GPU ran (its time from the GPU's timestamps)
};

class KernelMetricsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by MetricsController")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Role {
        OperationRole = Qt::UserRole + 1, // QString
        TypeRole,                         // QString
        IsaRole,                          // QString
        CallsRole,                        // qulonglong
        MeanLatencyRole,                  // QString, e.g. "12.5 µs"
        HistogramRole,                    // QVariantList of call counts, first to last non-empty bucket
        HistogramRangeRole,               // QString, e.g. "256 ns – 65 µs"
        ShareRole,     // double: this row's share of all kernel time (of the CPU's, or of the GPU's)
        CallsTextRole, // QString: the calls in the locale's digit groups ("1,198,010")
        KernelRole,    // QString
        GpuRole,       // bool: the GPU ran it
    };
    Q_ENUM(Role)

    explicit KernelMetricsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Replaces the rows in place, never resetting the view: rows of kernels that no longer run
    // are removed, new ones inserted, the others updated. The CPU's first, then the GPU's.
    void update(QList<KernelStats> rows);
    [[nodiscard]] const QList<KernelStats>& rows() const { return rows_; }

signals:
    void countChanged();

private:
    QList<KernelStats> rows_;
    quint64 cpuNs_ = 0, gpuNs_ = 0; // all the rows' time, of each kind
};

QString formatNanoseconds(double ns);

} // namespace hearth::app
