#pragma once
// The demo model shipped with the app (stories260K, resources/models/): where
// it is at run time. The build copies it to <build>/share/hearth/models/ and
// the package installs it to <prefix>/share/hearth/models/, so in both trees it
// lies at ../share/hearth/models/ from the executable (the app in bin/, the
// tests in tests-bin/). It stays a real file because a model is mmapped.
#include <QString>

namespace hearth::app {

inline constexpr auto kDemoModelFileName = "stories260K.gguf";

// The demo model's absolute path for an executable in `applicationDir`; empty when it is not
// there (a build without it, a broken install). HEARTH_DEMO_MODEL names another file, or, set
// to an empty value, hides the demo (tests of the window without it).
[[nodiscard]] QString findDemoModel(const QString& applicationDir);

} // namespace hearth::app
