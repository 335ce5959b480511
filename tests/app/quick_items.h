#pragma once
// Finds items of the real window by objectName, through the visual tree: delegates and items
// inside loaders are visual children of their view, not always QObject children, so
// QObject::findChild misses some. And what the window's pixels are checked with.
#include <QQuickItem>
#include <QRgb>
#include <QString>
#include <QtGlobal>

namespace hearth::test {

inline QQuickItem* findByName(QQuickItem* item, const QString& name) {
    if (!item) return nullptr;
    if (item->objectName() == name) return item;
    for (QQuickItem* child : item->childItems())
        if (QQuickItem* found = findByName(child, name)) return found;
    return nullptr;
}

// The item of that name that is shown: a closed dialog's or popup's items stay in the tree.
inline QQuickItem* findShown(QQuickItem* item, const QString& name) {
    if (!item || !item->isVisible()) return nullptr;
    if (item->objectName() == name) return item;
    for (QQuickItem* child : item->childItems())
        if (QQuickItem* found = findShown(child, name)) return found;
    return nullptr;
}

inline QRectF sceneRect(const QQuickItem* item) {
    return item->mapRectToScene(QRectF(0, 0, item->width(), item->height()));
}

inline int luminance(QRgb pixel) {
    return (qRed(pixel) * 299 + qGreen(pixel) * 587 + qBlue(pixel) * 114) / 1000;
}

// Equal within the rounding of a renderer's blending.
inline bool sameColour(QRgb a, QRgb b) {
    return qAbs(qRed(a) - qRed(b)) <= 2 && qAbs(qGreen(a) - qGreen(b)) <= 2 && qAbs(qBlue(a) - qBlue(b)) <= 2;
}

} // namespace hearth::test
