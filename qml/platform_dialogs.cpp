#include "platform_dialogs.h"
#include <algorithm>

namespace hearth::gui {

bool PlatformDialogs::runsQtQuickImplementation(const QObject* dialog) {
    if (!dialog) return false;
    // By class name: QPlatformDialogHelper is Qt's platform abstraction (private headers).
    const QList<QObject*> children = dialog->findChildren<QObject*>(Qt::FindDirectChildrenOnly);
    return std::any_of(children.cbegin(), children.cend(),
                       [](const QObject* child) { return child->inherits("QPlatformDialogHelper"); });
}

} // namespace hearth::gui
