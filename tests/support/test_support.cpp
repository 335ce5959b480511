#include "tests/support/test_support.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace hearth::test {

namespace fs = std::filesystem;

std::string testdata_dir() {
    if (const char* env = std::getenv("HEARTH_TESTDATA_DIR")) return env;
    return HEARTH_TESTDATA_DIR;
}
std::string testdata(const std::string& relative) { return testdata_dir() + "/" + relative; }
std::string bin_dir() { return HEARTH_BIN_DIR; }
std::string artifact_dir() { return HEARTH_TEST_ARTIFACT_DIR; }

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

namespace {
std::vector<fs::path>& temp_dirs() {
    static std::vector<fs::path> dirs;
    return dirs;
}
void remove_temp_dirs() {
    std::error_code ignored;
    for (const auto& d : temp_dirs()) fs::remove_all(d, ignored);
}
} // namespace

std::string make_temp_dir(const std::string& prefix) {
    static std::once_flag registered;
    std::call_once(registered, [] {
        // The list first: exit handlers and static destructors run in reverse order, so the
        // list must be constructed before the handler that reads it is registered.
        temp_dirs();
        std::atexit(remove_temp_dirs);
    });
    std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    temp_dirs().emplace_back(buffer.data());
    return buffer.data();
}

} // namespace hearth::test
