#include "app/models/image_projector_pairing.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/image_projector.h"
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <cstdint>

namespace hearth::app {
namespace {

// A file name reduced to what names the model: lower case, without ".gguf", the word "mmproj"
// or "model" around it, and the weight type at its end ("-Q4_K_M", "-f16", ".bf16").
QString modelStem(QString name) {
    name = name.toLower();
    if (name.endsWith(QStringLiteral(".gguf"))) name.chop(5);
    static const QRegularExpression weightType(
        QStringLiteral("[-_.](i?q[0-9][a-z0-9_]*|f16|f32|bf16|fp16|fp32)$"));
    static const QRegularExpression projectorWord(QStringLiteral("(^|[-_.])mmproj([-_.]|$)"));
    name.replace(projectorWord, QStringLiteral("-"));
    name.remove(weightType);
    static const QRegularExpression edges(QStringLiteral("^[-_.]+|[-_.]+$"));
    name.remove(edges);
    return name;
}

// The projector of that width (0: any) among the files named "*mmproj*.gguf" beside the model.
QString projectorBeside(const QString& modelPath, int64_t modelWidth) {
    const QFileInfo model(modelPath);
    const QDir folder = model.absoluteDir();
    QStringList projectors;
    for (const QString& name : folder.entryList({QStringLiteral("*mmproj*.gguf")}, QDir::Files)) {
        try {
            const auto file = gguf::GgufFile::open(folder.filePath(name).toStdString());
            if (!gguf::is_image_projector(*file)) continue;
            const int64_t width = file->get_int("clip.vision.projection_dim").value_or(0);
            if (modelWidth == 0 || width == modelWidth) projectors.append(name);
        } catch (const std::exception&) {
            // Damaged or not GGUF: not a projector to pair.
        }
    }
    const QString paired = pairImageProjector(model.fileName(), projectors);
    return paired.isEmpty() ? QString() : folder.filePath(paired);
}

} // namespace

QString pairImageProjector(const QString& model, QStringList projectors) {
    projectors.sort(Qt::CaseInsensitive);
    const QString stem = modelStem(model);
    for (const QString& projector : projectors)
        if (!stem.isEmpty() && modelStem(projector) == stem) return projector;
    // "mmproj-gemma-3-4b" beside "gemma-3-4b-it-Q4_K_M": one name starts the other.
    for (const QString& projector : projectors) {
        const QString other = modelStem(projector);
        if (other.size() >= 3 && stem.size() >= 3 && (stem.startsWith(other) || other.startsWith(stem)))
            return projector;
    }
    // A projector named for no model ("mmproj-model-f16.gguf") goes with the folder's model.
    return projectors.size() == 1 ? projectors.constFirst() : QString();
}

QString findImageProjector(const QString& modelPath) {
    try {
        return findImageProjector(modelPath, *gguf::GgufFile::open(modelPath.toStdString()));
    } catch (const std::exception&) {
        return {}; // not a model that loads
    }
}

QString findImageProjector(const QString& modelPath, const gguf::GgufFile& model) {
    // A projector's output is the model's input: their widths must agree (0: unknown, not checked).
    int64_t modelWidth = 0;
    if (const auto architecture = model.get_string("general.architecture"))
        modelWidth = model.get_int(*architecture + ".embedding_length").value_or(0);
    return projectorBeside(modelPath, modelWidth);
}

} // namespace hearth::app
