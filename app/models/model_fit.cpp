#include "app/models/model_fit.h"
#include "engine/model/hparams.h"
#include <unistd.h>

namespace hearth::app {

bool isRunnableArchitecture(const QString& architecture) {
    return engine::architecture_from_name(architecture.toStdString()).has_value();
}

qint64 physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 0;
    return qint64(pages) * qint64(pageSize);
}

MemoryFit memoryFit(qint64 neededBytes, qint64 physicalBytes) {
    if (physicalBytes <= 0 || neededBytes <= 0) return MemoryFit::Unknown;
    if (neededBytes > physicalBytes) return MemoryFit::TooLarge;
    if (neededBytes > physicalBytes / 5 * 4) return MemoryFit::Tight;
    return MemoryFit::Fits;
}

} // namespace hearth::app
