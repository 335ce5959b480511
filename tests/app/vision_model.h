#pragma once
// A model that reads images, for the app's suites: tiny-gemma3 with its image projector
// (mmproj) beside it in a folder of the test's own, loaded through the path a drop uses.
#include "app/chat/hearth_backend.h"
#include "app/models/model_controller.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QUrl>

namespace hearth::test {

inline QString visionModelPath(const QString& dir) {
    return dir + "/vision-model/tiny-gemma3.gguf";
}

inline bool loadVisionModel(app::HearthBackend& b, const QString& dir) {
    const QString folder = dir + "/vision-model";
    if (!QDir().mkpath(folder)) return false;
    const QString model = visionModelPath(dir);
    const QString projector = folder + "/mmproj-tiny-gemma3-f32.gguf";
    if (!QFile::exists(model) &&
        !QFile::link(QString::fromStdString(testdata("models/tiny-gemma3.gguf")), model))
        return false;
    if (!QFile::exists(projector) &&
        !QFile::link(QString::fromStdString(testdata("vision/mmproj-tiny-gemma3-f32.gguf")), projector))
        return false;
    QSignalSpy ready(b.models(), &app::ModelController::modelReady);
    if (!b.models()->loadDroppedFile(QUrl::fromLocalFile(model)) || !ready.wait(30000)) return false;
    return b.models()->imageInput();
}

} // namespace hearth::test
