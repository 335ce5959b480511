#pragma once
// What a path typed into Hearth's own file dialog names: a folder, a file, or nothing. "~" stands
// for the home folder, and a relative path is taken from the folder the dialog shows.
#include <QObject>
#include <QUrl>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace hearth::gui {

class TypedPath : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    using QObject::QObject;

    // {"kind": "folder", "file" or "none", "url": the file: URL of the clean absolute path}.
    Q_INVOKABLE static QVariantMap resolve(const QString& typed, const QUrl& shownFolder);
};

} // namespace hearth::gui
