#include "app/models/compute_device_list.h"
#include "app/models/format.h"
#include "app/settings/app_settings.h"
#include "engine/forward/compute_device.h"
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <qcoro/qcorofuture.h>

namespace hearth::app {

ComputeDeviceList::ComputeDeviceList(AppSettings* settings, QObject* parent)
    : QObject(parent), settings_(settings) {
    connect(settings, &AppSettings::engineConfigChanged, this, &ComputeDeviceList::rebuild);
    rebuild();
}

QStringList ComputeDeviceList::keys() const {
    QStringList keys;
    for (const Choice& c : choices_)
        keys << c.key;
    return keys;
}

QStringList ComputeDeviceList::labels() const {
    QStringList labels;
    for (const Choice& c : choices_)
        labels << c.label;
    return labels;
}

void ComputeDeviceList::refresh() {
    list();
}

QCoro::Task<> ComputeDeviceList::list() {
    if (listing_) co_return;
    listing_ = true;
    emit changed();
    const QPointer<ComputeDeviceList> self(this);
    QFuture<QList<Choice>> future = QtConcurrent::run([] {
        QList<Choice> gpus;
        for (const engine::GpuDeviceInfo& d : engine::gpu_devices()) {
            const QString name = QString::fromStdString(d.name);
            const QString memory = formatBytes(static_cast<qint64>(d.device_local_bytes));
            gpus.append({QStringLiteral("vulkan:%1").arg(d.index),
                         d.unusable_reason.empty()
                             ? tr("%1 · %2").arg(name, memory)
                             : tr("%1 · %2 (cannot run models: %3)")
                                   .arg(name, memory, QString::fromStdString(d.unusable_reason))});
        }
        return gpus;
    });
    QList<Choice> gpus = co_await future;
    if (!self) co_return;
    gpus_ = std::move(gpus);
    listed_ = true;
    listing_ = false;
    rebuild();
    emit changed(); // listing_ at least
}

void ComputeDeviceList::rebuild() {
    QList<Choice> choices{{QStringLiteral("cpu"), tr("CPU")}};
    choices.append(gpus_);
    const QString chosen = settings_->computeDevice();
    const bool known =
        std::any_of(choices.begin(), choices.end(), [&](const Choice& c) { return c.key == chosen; });
    if (!known) {
        const QString label = chosen == QLatin1String("vulkan") ? tr("The best GPU")
                              : listed_                         ? tr("%1 (not found)").arg(chosen)
                                                                : chosen;
        choices.append({chosen, label});
    }
    const bool same =
        std::equal(choices.begin(), choices.end(), choices_.begin(), choices_.end(),
                   [](const Choice& a, const Choice& b) { return a.key == b.key && a.label == b.label; });
    if (same) return;
    choices_ = std::move(choices);
    emit changed();
}

} // namespace hearth::app
