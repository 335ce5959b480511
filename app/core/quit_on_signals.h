#pragma once
// SIGTERM (a session ending, `kill`), SIGINT (Ctrl+C in a terminal) and SIGHUP (the terminal
// closing) quit the event loop the way closing the window does, so that the app ends as it
// would then: queued database writes finished, the conversations' KV states saved, the
// profile's lock and the single-instance socket removed. Without this the default action ends
// the process on the spot and all of that is lost.
#include <QCoreApplication>

namespace hearth::app {

// Call once, after the application object exists; a second call does nothing.
void quitOnTerminationSignals(QCoreApplication& application);

} // namespace hearth::app
