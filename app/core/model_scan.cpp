#include "app/core/model_scan.h"
#include "app/core/engine_config.h"
#include "app/core/model_names.h"
#include "engine/model/model.h"
#include <QDirIterator>
#include <QFileInfo>
#include <QSet>
#include <algorithm>

namespace hearth::app {

ModelEntry readModelEntry(const QString& path, const EngineConfig& config) {
    const int contextLength = config.contextLength;
    ModelEntry entry;
    entry.path = path;
    entry.name = QFileInfo(path).completeBaseName();
    entry.fileBytes = QFileInfo(path).size();
    try {
        // A file the engine cannot run (e.g. another architecture) gets the reason as its
        // error, as loading it would.
        const engine::ModelInfo info = engine::Model::read_info(path.toStdString());
        entry.name = displayName(info);
        entry.architecture = QString::fromStdString(info.architecture);
        entry.quantization =
            QString::fromStdString(info.file_type.empty() ? info.quantization : info.file_type);
        entry.parameters = info.parameters;
        entry.fileBytes = info.file_bytes;
        entry.contextLength = info.context_length;
        entry.hasChatTemplate = info.has_chat_template;
        const int context =
            info.context_length > 0 ? std::min(contextLength, info.context_length) : contextLength;
        const engine::KvCacheTypes types = kvCacheTypes(config);
        entry.estimatedBytes = info.estimated_bytes(context, types.keys, types.values);
    } catch (const std::exception& e) {
        entry.error = QString::fromUtf8(e.what());
    }
    return entry;
}

QList<ModelEntry> scanModels(const QString& folder, const QStringList& recent, const EngineConfig& config) {
    QList<ModelEntry> entries;
    QSet<QString> seen;
    for (const QString& path : recent) {
        const QFileInfo file(path);
        if (!file.isFile() || seen.contains(file.absoluteFilePath())) continue;
        seen.insert(file.absoluteFilePath());
        ModelEntry entry = readModelEntry(file.absoluteFilePath(), config);
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
            found.append(readModelEntry(file.absoluteFilePath(), config));
        }
    }
    std::sort(found.begin(), found.end(), [](const ModelEntry& a, const ModelEntry& b) {
        return QString::compare(a.name, b.name, Qt::CaseInsensitive) < 0;
    });
    entries.append(found);
    return entries;
}

} // namespace hearth::app
