#pragma once
#include <stdexcept>
#include <string>

namespace hearth {

// Every engine failure the user can cause (a bad file, a bad template, ...) is
// an Error whose message names the file or input and the problem.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace hearth
