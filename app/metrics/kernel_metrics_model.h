#pragma once
// One row per kernel that has run (operation, weight type, kernel and its tier or device): how
// often and how long, with its latency histogram, for the metrics panel.
#include <QAbstractListModel>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace hearth::app {

struct KernelStats {
    QString operation; // "matvec", "matmat", ...
    QString type;      // weight type, "q4_K", "f32", ...
    QString isa;       // the kernel's tier or device: "avx2", "scalar", "vulkan"
    quint64 calls = 0;
    quint64 totalNs = 0;
    QList<quint64> histogram; // calls per power-of-two nanosecond bucket (2^b .. 2^(b+1))
    QString kernel;           // the kernel's name: "gemm_q4_K_q8_K"
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
        ShareRole,                        // double: this row's share of all kernel time
        CallsTextRole,                    // QString: the calls in the locale's digit groups ("1,198,010")
        KernelRole,                       // QString
    };
    Q_ENUM(Role)

    explicit KernelMetricsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Replaces the rows, in place when the same kernels are listed (no view reset).
    void update(QList<KernelStats> rows);
    [[nodiscard]] const QList<KernelStats>& rows() const { return rows_; }

signals:
    void countChanged();

private:
    QList<KernelStats> rows_;
    quint64 totalNs_ = 0;
};

QString formatNanoseconds(double ns);

} // namespace hearth::app
