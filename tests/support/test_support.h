#pragma once
// Paths and readers shared by the test suites.
#include <string>
#include <vector>

namespace hearth::test {

std::string testdata_dir();                       // ../shared/testdata
std::string testdata(const std::string& relative); // testdata_dir() + "/" + relative
std::string bin_dir();                            // build/bin, where hearth-cli lives
std::string artifact_dir();                       // build/test-artifacts
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);
// A fresh empty directory under the system temp dir, removed at process exit.
std::string make_temp_dir(const std::string& prefix);

} // namespace hearth::test
