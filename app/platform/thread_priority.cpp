#include "app/platform/thread_priority.h"
#include <cerrno>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hearth::process {

bool runBelowTheWindow() {
#if defined(__linux__)
    // Linux keeps the niceness per thread: PRIO_PROCESS with a thread id sets that thread's.
    const auto thread = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, thread);
    if (errno != 0) return false;
    if (now >= kEngineThreadNiceness) return true;
    return ::setpriority(PRIO_PROCESS, thread, kEngineThreadNiceness) == 0;
#else
    return false;
#endif
}

} // namespace hearth::process
