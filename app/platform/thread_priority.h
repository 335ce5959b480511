#pragma once
// The engine's threads yield to the window. On a machine with few cores the inference threads
// and the GUI thread share them, and the scheduler gives each its fair share: a 10 ms layout
// took 20 ms of wall time beside a busy kernel thread, and the window stalled for that long.
// At a higher niceness the inference threads still take every cycle the window leaves idle,
// so generation loses only what the window really uses, as it did before.
namespace hearth::process {

// The niceness the engine's threads run at: the scheduler gives a runnable GUI thread about
// four fifths of a core it shares with one of them (weights 1024 against 272).
inline constexpr int kEngineThreadNiceness = 6;

// Lowers the calling thread's priority to kEngineThreadNiceness (never raises it: giving it back
// needs a privilege). The threads it starts afterwards, the kernels' pool among them, inherit
// the niceness. Returns false where the system refused, which leaves the priority as it was.
bool runBelowTheWindow();

} // namespace hearth::process
