#include "app/models/model_scan.h"
#include "app/models/image_projector_pairing.h"
#include "app/models/model_fit.h"
#include "app/models/model_names.h"
#include "app/settings/engine_config.h"
#include "engine/chat/chat_template.h"
#include "engine/forward/device_plan.h"
#include "engine/forward/inference.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/image_projector.h"
#include "engine/model/model.h"
#include "engine/runtime/engine_runtime.h"
#include "engine/tokenizer/tokenizer.h"
#include <QCoreApplication>
#include <QDirIterator>
#include <QFileInfo>
#include <QSet>
#include <algorithm>

namespace hearth::app {

namespace {
// What a user should know about a file the engine runs, from its metadata alone (the
// picker builds no vocabulary): how its text is split, and how its template takes a
// system prompt.
QStringList usageNotes(const gguf::GgufFile& file) {
    QStringList notes;
    for (const std::string& warning : tokenizer::pre_tokenizer_warnings(file))
        notes.append(QString::fromStdString(warning));
    if (const auto source = file.get_string("tokenizer.chat_template")) {
        try {
            if (!chat::ChatTemplate(*source).takes_system_role())
                notes.append(QCoreApplication::translate(
                    "ModelScan", "Its chat template has no system role: the system prompt goes at the "
                                 "start of the first message."));
        } catch (const std::exception&) {
            // A template that does not parse: the chat falls back to ChatML, which takes one.
        }
    }
    return notes;
}
} // namespace

ModelEntry readModelEntry(const QString& path, const EngineConfig& config, qint64 gpuMemoryBytes) {
    ModelEntry entry;
    entry.path = path;
    entry.name = QFileInfo(path).completeBaseName();
    entry.fileBytes = QFileInfo(path).size();
    try {
        // A file the engine cannot run (e.g. another architecture) gets the reason as its
        // error, as loading it would.
        // One open of the file for both its description and its warnings.
        const auto file = gguf::GgufFile::open(path.toStdString());
        entry.imageProjector = gguf::is_image_projector(*file); // read_info then says what it is
        const engine::ModelInfo info = engine::Model::read_info(*file);
        entry.name = displayName(info);
        entry.architecture = QString::fromStdString(info.architecture);
        entry.quantization =
            QString::fromStdString(info.file_type.empty() ? info.quantization : info.file_type);
        entry.parameters = info.parameters;
        entry.fileBytes = info.file_bytes;
        entry.contextLength = info.context_length;
        entry.hasChatTemplate = info.has_chat_template;
        entry.speedCost = engine::model_cost(*file);
        const int context =
            engine::EngineRuntime::effective_context(info.context_length, config.context_length);
        const engine::KvCacheTypes types = config.cache_types;
        entry.estimatedBytes = info.estimated_bytes(context, types.keys, types.values);
        entry.gpuChosen = config.device.kind != engine::ComputeDevice::Kind::Cpu && config.gpu_layers != 0;
        if (entry.gpuChosen) {
            // Planned as the worker runs it: batches of the engine's default size.
            const engine::DeviceMemoryPlan plan =
                engine::plan_device_memory(*file, config.n_batch, context, types);
            const GpuSplit split = gpuSplit(plan, info.file_bytes, gpuMemoryBytes, config.gpu_layers);
            entry.gpuLayers = split.gpuLayers;
            entry.layerCount = split.layerCount;
            entry.gpuBytes = split.gpuBytes;
            entry.estimatedBytes = split.ramBytes;
        }
        entry.warnings = usageNotes(*file);
        if (!entry.imageProjector)
            entry.visionProjector = findImageProjector(path, *file); // header read once
    } catch (const std::exception& e) {
        entry.error = QString::fromUtf8(e.what());
    }
    return entry;
}

QList<ModelEntry> scanModels(const QString& folder, const QStringList& recent, const EngineConfig& config,
                             const QHash<QString, QString>& chosenProjectors) {
    const qint64 gpuMemory = chosenGpuMemoryBytes(config);
    QList<ModelEntry> entries;
    QSet<QString> seen;
    for (const QString& path : recent) {
        const QFileInfo file(path);
        if (!file.isFile() || seen.contains(file.absoluteFilePath())) continue;
        seen.insert(file.absoluteFilePath());
        ModelEntry entry = readModelEntry(file.absoluteFilePath(), config, gpuMemory);
        if (entry.imageProjector) continue; // a vision model's projector is no model to pick
        entry.recent = true;
        entries.append(entry);
    }
    QList<ModelEntry> found;
    if (!folder.isEmpty() && QFileInfo(folder).isDir()) {
        QDirIterator it(folder, {QStringLiteral("*.gguf")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QFileInfo file(it.next());
            const QString relative = QDir(folder).relativeFilePath(file.absoluteFilePath());
            if (relative.count(QLatin1Char('/')) > 1 || seen.contains(file.absoluteFilePath())) continue;
            seen.insert(file.absoluteFilePath());
            ModelEntry entry = readModelEntry(file.absoluteFilePath(), config, gpuMemory);
            if (!entry.imageProjector) found.append(entry);
        }
    }
    std::sort(found.begin(), found.end(), [](const ModelEntry& a, const ModelEntry& b) {
        return QString::compare(a.name, b.name, Qt::CaseInsensitive) < 0;
    });
    entries.append(found);
    for (ModelEntry& entry : entries)
        if (const QString chosen = chosenProjectors.value(entry.path); !chosen.isEmpty())
            entry.visionProjector = chosen;
    return entries;
}

} // namespace hearth::app
