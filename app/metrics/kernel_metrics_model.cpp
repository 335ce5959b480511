#include "app/metrics/kernel_metrics_model.h"
#include <QLocale>
#include <algorithm>

namespace hearth::app {

QString formatNanoseconds(double ns) {
    if (ns < 1e3) return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
    if (ns < 1e6) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', ns < 1e4 ? 1 : 0);
    if (ns < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', ns < 1e7 ? 1 : 0);
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 2);
}

KernelMetricsModel::KernelMetricsModel(QObject* parent) : QAbstractListModel(parent) {}

int KernelMetricsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

namespace {
std::pair<int, int> nonEmptyRange(const QList<quint64>& histogram) {
    int first = 0, last = static_cast<int>(histogram.size()) - 1;
    while (first <= last && histogram[first] == 0)
        ++first;
    while (last >= first && histogram[last] == 0)
        --last;
    return {first, last};
}
} // namespace

QVariant KernelMetricsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const KernelStats& row = rows_.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case OperationRole:
        return row.operation;
    case TypeRole:
        return row.type;
    case IsaRole:
        return row.isa;
    case KernelRole:
        return row.kernel;
    case CallsRole:
        return QVariant::fromValue<qulonglong>(row.calls);
    case MeanLatencyRole:
        return row.calls ? formatNanoseconds(static_cast<double>(row.totalNs) / row.calls) : QString();
    case HistogramRole: {
        const auto [first, last] = nonEmptyRange(row.histogram);
        QVariantList counts;
        for (int b = first; b <= last; ++b)
            counts.append(static_cast<double>(row.histogram[b]));
        return counts;
    }
    case HistogramRangeRole: {
        const auto [first, last] = nonEmptyRange(row.histogram);
        if (first > last) return QString();
        return QStringLiteral("%1 – %2").arg(formatNanoseconds(std::ldexp(1.0, first)),
                                             formatNanoseconds(std::ldexp(1.0, last + 1)));
    }
    case CallsTextRole:
        // A count past a million in a JavaScript string is "1.19801e+06": grouped digits instead.
        return QLocale().toString(static_cast<qulonglong>(row.calls));
    case ShareRole: {
        const quint64 total = row.gpu ? gpuNs_ : cpuNs_;
        return total ? static_cast<double>(row.totalNs) / static_cast<double>(total) : 0.0;
    }
    case GpuRole:
        return row.gpu;
    default:
        return {};
    }
}

QHash<int, QByteArray> KernelMetricsModel::roleNames() const {
    return {{OperationRole, "operation"},
            {TypeRole, "type"},
            {IsaRole, "isa"},
            {CallsRole, "calls"},
            {MeanLatencyRole, "meanLatency"},
            {HistogramRole, "histogram"},
            {HistogramRangeRole, "histogramRange"},
            {ShareRole, "share"},
            {CallsTextRole, "callsText"},
            {KernelRole, "kernel"},
            {GpuRole, "gpu"}};
}

void KernelMetricsModel::update(QList<KernelStats> rows) {
    const auto key = [](const KernelStats& r) {
        return std::tie(r.gpu, r.operation, r.type, r.isa, r.kernel);
    };
    std::sort(rows.begin(), rows.end(),
              [&](const KernelStats& a, const KernelStats& b) { return key(a) < key(b); });
    cpuNs_ = gpuNs_ = 0;
    for (const KernelStats& r : rows)
        (r.gpu ? gpuNs_ : cpuNs_) += r.totalNs;
    // Both lists sorted by key: a kernel that left is removed, one that came is inserted, the
    // others take their new figures, so the view makes delegates for the new rows only (a reset
    // made the panel's Repeater build every row again, 15-30 ms on the GUI thread per sample).
    const qsizetype before = rows_.size();
    qsizetype i = 0, j = 0;
    while (i < rows_.size() || j < rows.size()) {
        if (j == rows.size() || (i < rows_.size() && key(rows_[i]) < key(rows[j]))) {
            beginRemoveRows({}, static_cast<int>(i), static_cast<int>(i));
            rows_.removeAt(i);
            endRemoveRows();
        } else if (i == rows_.size() || key(rows[j]) < key(rows_[i])) {
            beginInsertRows({}, static_cast<int>(i), static_cast<int>(i));
            rows_.insert(i, std::move(rows[j]));
            endInsertRows();
            ++i, ++j;
        } else {
            rows_[i] = std::move(rows[j]);
            ++i, ++j;
        }
    }
    if (!rows_.isEmpty()) emit dataChanged(index(0), index(static_cast<int>(rows_.size()) - 1));
    if (rows_.size() != before) emit countChanged();
}

} // namespace hearth::app
