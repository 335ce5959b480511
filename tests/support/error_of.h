#pragma once
// The message of the hearth::Error a call throws, or an empty string when it throws none.
#include "engine/error.h"
#include <QString>
#include <functional>

namespace hearth::test {

inline QString error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace hearth::test
