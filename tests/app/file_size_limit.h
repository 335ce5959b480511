#pragma once
// A full disk, simulated with RLIMIT_FSIZE: every write this process makes to a file past the
// limit fails. With SIGXFSZ ignored the write returns EFBIG (what a full disk does to a
// write); with its default action the process dies at that byte (a kill mid-write).
#include <QDirIterator>
#include <QFileInfo>
#include <algorithm>
#include <csignal>
#include <sys/resource.h>

namespace hearth::test {

// While it lives, writes past `bytes` fail with EFBIG.
class FileSizeLimit {
public:
    explicit FileSizeLimit(qint64 bytes) {
        std::signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &saved_);
        rlimit limited = saved_;
        limited.rlim_cur = static_cast<rlim_t>(bytes);
        ok_ = setrlimit(RLIMIT_FSIZE, &limited) == 0;
    }
    ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &saved_); }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    [[nodiscard]] bool ok() const { return ok_; }

private:
    rlimit saved_{};
    bool ok_ = false;
};

// From now on a write past `bytes` kills this process.
inline void dieWhenAFileReaches(qint64 bytes) {
    std::signal(SIGXFSZ, SIG_DFL);
    rlimit limit{};
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    setrlimit(RLIMIT_FSIZE, &limit);
}

// The largest file under `dir`: a limit above it lets the files as they are be rewritten.
inline qint64 largestFileIn(const QString& dir) {
    qint64 largest = 0;
    for (QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
        largest = std::max(largest, QFileInfo(it.next()).size());
    return largest;
}

} // namespace hearth::test
