#include "app/platform/quit_on_signals.h"
#include <QSocketNotifier>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace hearth::process {

namespace {

// The handler may only do what is async-signal-safe: it writes the signal's number, one byte,
// to a socket pair whose other end the event loop watches.
int signalSockets[2] = {-1, -1};
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

void onTerminationSignal(int signal) {
    const char byte = static_cast<char>(signal);
    [[maybe_unused]] const ssize_t written = ::write(signalSockets[0], &byte, 1);
}

void restoreDefaultActions() {
    for (const int signal : kSignals)
        std::signal(signal, SIG_DFL);
}

} // namespace

void quitOnTerminationSignals(QCoreApplication& application) {
    if (signalSockets[0] >= 0) return;
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, signalSockets) != 0) {
        qWarning("termination signals: no socket pair; they end the app without saving");
        return;
    }
    auto* notifier = new QSocketNotifier(signalSockets[1], QSocketNotifier::Read, &application);
    QObject::connect(notifier, &QSocketNotifier::activated, &application, [&application] {
        char byte = 0;
        [[maybe_unused]] const ssize_t read = ::read(signalSockets[1], &byte, 1);
        restoreDefaultActions();
        application.quit();
    });
    struct sigaction action = {};
    action.sa_handler = onTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int signal : kSignals)
        ::sigaction(signal, &action, nullptr);
}

void restoreTerminationSignals() {
    if (signalSockets[0] < 0) return;
    restoreDefaultActions();
    char byte = 0;
    if (::recv(signalSockets[1], &byte, 1, MSG_DONTWAIT) == 1) ::raise(static_cast<unsigned char>(byte));
}

} // namespace hearth::process
