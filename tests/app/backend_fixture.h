#pragma once
// Steps the controller suites take with a real HearthBackend: start it, load stories260K
// through the path a drop uses, wait for replies and messages.
#include "app/chat/chat_controller.h"
#include "app/chat/hearth_backend.h"
#include "app/chat/message_list_model.h"
#include "app/models/model_controller.h"
#include "tests/support/test_support.h"
#include <QDir>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

namespace hearth::test {

inline QString storiesModelPath() {
    return QDir::cleanPath(QString::fromStdString(testdata("models/stories260K.gguf")));
}

inline bool startChat(app::HearthBackend& b) {
    QSignalSpy ready(b.chat(), &app::ChatController::readyChanged);
    b.start();
    return b.chat()->ready() || ready.wait(10000);
}

inline bool loadModel(app::HearthBackend& b) {
    QSignalSpy ready(b.models(), &app::ModelController::modelReady);
    if (!b.models()->loadDroppedFile(QUrl::fromLocalFile(storiesModelPath()))) return false;
    return ready.wait(30000);
}

inline bool finishReply(app::ChatController* chat) {
    QSignalSpy finished(chat, &app::ChatController::replyFinished);
    return !chat->generating() || finished.wait(60000);
}

inline bool waitForMessages(app::ChatController* chat, int count) {
    return QTest::qWaitFor([&] { return chat->messages()->count() == count; }, 10000);
}

} // namespace hearth::test
