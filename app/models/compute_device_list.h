#pragma once
// What the settings offer to run the model on: the CPU, and each Vulkan device of this machine by
// name with its memory. Listed on a pool thread (listing opens a Vulkan instance), once asked to.
#include <QList>
#include <QObject>
#include <QStringList>
#include <QtQml/qqmlregistration.h>
#include <qcoro/qcorotask.h>

namespace hearth::app {

class AppSettings;

class ComputeDeviceList : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by ModelController")
    // AppSettings::computeDevice's values ("cpu", "vulkan:0", ...), and what the user reads for
    // each ("CPU", "NVIDIA GeForce RTX 4070 · 12.9 GB"), in the same order. A device the setting
    // names but this machine lacks is listed too, as not found.
    Q_PROPERTY(QStringList keys READ keys NOTIFY changed)
    Q_PROPERTY(QStringList labels READ labels NOTIFY changed)
    Q_PROPERTY(bool listing READ listing NOTIFY changed)

public:
    explicit ComputeDeviceList(AppSettings* settings, QObject* parent = nullptr);

    [[nodiscard]] QStringList keys() const;
    [[nodiscard]] QStringList labels() const;
    [[nodiscard]] bool listing() const { return listing_; }

    // Lists the devices again (in the background); changed() when done.
    Q_INVOKABLE void refresh();
    QCoro::Task<> list();

signals:
    void changed();

private:
    struct Choice {
        QString key;
        QString label;
    };
    void rebuild();

    AppSettings* settings_;
    QList<Choice> gpus_;    // as listed
    QList<Choice> choices_; // the CPU, the GPUs, and the setting's device when not among them
    bool listed_ = false;
    bool listing_ = false;
};

} // namespace hearth::app
