#pragma once
// Finds items of the real window by objectName, through the visual tree: delegates and items
// inside loaders are visual children of their view, not always QObject children, so
// QObject::findChild misses some.
#include <QQuickItem>
#include <QString>

namespace hearth::test {

inline QQuickItem* findByName(QQuickItem* item, const QString& name) {
    if (!item) return nullptr;
    if (item->objectName() == name) return item;
    for (QQuickItem* child : item->childItems())
        if (QQuickItem* found = findByName(child, name)) return found;
    return nullptr;
}

} // namespace hearth::test
