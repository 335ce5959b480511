#pragma once
// A vision model's image projector (llama.cpp's "mmproj" file) is a file of its own, downloaded
// beside the model: "mmproj-gemma-3-4b-it-f16.gguf" beside "gemma-3-4b-it-Q4_K_M.gguf". This finds
// it: a projector in the model's folder whose name, without "mmproj" and the weight type, is the
// model's, or the folder's only projector of the model's width when none is named so.
#include <QString>
#include <QStringList>

namespace hearth::gguf {
class GgufFile;
}

namespace hearth::app {

// Of the projector files named `projectors` (file names in the model's folder), the one that goes
// with the model file `model`; empty when none does. Among equal matches, the first by name.
QString pairImageProjector(const QString& model, QStringList projectors);

// The projector for the model at `modelPath`: files named "*mmproj*.gguf" in its folder that are
// projectors (their header says so) whose output width is the model's, paired as above. Empty
// when there is none.
QString findImageProjector(const QString& modelPath);
// The same for a model whose file is open (its header is not read again).
QString findImageProjector(const QString& modelPath, const gguf::GgufFile& model);

} // namespace hearth::app
