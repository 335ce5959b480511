#pragma once
// Which file dialog QtQuick.Dialogs shows: the platform theme's (GTK, the desktop portal, KDE),
// or Qt's own Qt Quick implementation. FileChooserDialog and FolderChooserDialog keep the
// platform's and put their own dialog in place of Qt's, which Qt 6.4 draws without a
// background or a dim under the software renderer, and whose folder dialog cannot choose the
// folder it shows.
#include <QObject>
#include <QtQml/qqmlregistration.h>

namespace hearth::gui {

class PlatformDialogs : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    using QObject::QObject;

    // True when `dialog`, a QtQuick.Dialogs dialog that has been opened, runs Qt's Qt Quick
    // implementation. Qt creates that implementation's helper as a child of the dialog; a
    // platform theme's helper belongs to the theme and is no child of it.
    Q_INVOKABLE static bool runsQtQuickImplementation(const QObject* dialog);
};

} // namespace hearth::gui
