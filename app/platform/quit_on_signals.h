#pragma once
// SIGTERM (a session ending, `kill`), SIGINT (Ctrl+C in a terminal) and SIGHUP (the terminal
// closing) quit the event loop the way closing the window does, so that the process ends as it
// would then: the app finishes its queued database writes, saves the conversations' KV states
// and removes the profile's lock and the single-instance socket; `hearth-cli serve` cancels
// what it is generating (both through QCoreApplication::aboutToQuit and what follows exec).
// Without this the default action ends the process on the spot and all of that is lost. The
// first signal restores the default actions, so that a second one ends a shutdown that hangs.
#include <QCoreApplication>

namespace hearth::process {

// Call once, after the application object exists; a second call does nothing.
void quitOnTerminationSignals(QCoreApplication& application);

// Gives the signals back their default actions, for a process that will not run its event loop
// after all (a second start that hands its model over): one that came since
// quitOnTerminationSignals ends the process now, as it would have then.
void restoreTerminationSignals();

} // namespace hearth::process
