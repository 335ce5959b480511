#pragma once
// Who wrote a message of a conversation. Chat templates compare roles as strings
// ("system", "user", ...); everything else takes this enum, and role_name is the
// one place the names are spelled.
#include <optional>
#include <string_view>

namespace hearth::chat {

enum class Role { System, User, Assistant, Tool };

// "system", "user", "assistant" or "tool": what a template sees as message.role.
std::string_view role_name(Role role);
// The role a name spells; nullopt for any other name.
std::optional<Role> role_from_name(std::string_view name);

} // namespace hearth::chat
