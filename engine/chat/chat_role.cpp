#include "engine/chat/chat_role.h"
#include <array>
#include <cstddef>

namespace hearth::chat {

namespace {
// Indexed by Role.
constexpr std::array<std::string_view, 4> kRoleNames = {"system", "user", "assistant", "tool"};
} // namespace

std::string_view role_name(Role role) {
    return kRoleNames.at(static_cast<size_t>(role));
}

std::optional<Role> role_from_name(std::string_view name) {
    for (size_t i = 0; i < kRoleNames.size(); ++i)
        if (kRoleNames[i] == name) return static_cast<Role>(i);
    return std::nullopt;
}

} // namespace hearth::chat
