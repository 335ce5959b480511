#pragma once
// Whether this engine and this machine can run a model: the architectures the
// engine reads (engine::architecture_from_name) and the memory it needs against
// the machine's RAM.
#include <QString>

namespace hearth::app {

bool isRunnableArchitecture(const QString& architecture);
// Physical memory of this machine in bytes; 0 when unknown.
qint64 physicalMemoryBytes();

enum class MemoryFit {
    Fits,     // leaves room for the system and other programs
    Tight,    // fits in RAM, but leaves less than a fifth of it
    TooLarge, // more than the machine has
    Unknown,
};
MemoryFit memoryFit(qint64 neededBytes, qint64 physicalBytes);

} // namespace hearth::app
