#include "typed_path.h"
#include <QDir>
#include <QFileInfo>

namespace hearth::gui {

QVariantMap TypedPath::resolve(const QString& typed, const QUrl& shownFolder) {
    QString path = typed.trimmed();
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        path = QDir::homePath() + path.mid(1);
    else if (path.startsWith(QLatin1String("file:")))
        path = QUrl(path).toLocalFile();
    if (QDir::isRelativePath(path)) path = QDir(shownFolder.toLocalFile()).filePath(path);
    path = QDir::cleanPath(path);
    const QFileInfo info(path);
    const QString kind = !info.exists() ? QStringLiteral("none")
                         : info.isDir() ? QStringLiteral("folder")
                                        : QStringLiteral("file");
    return {{QStringLiteral("kind"), kind}, {QStringLiteral("url"), QUrl::fromLocalFile(path)}};
}

} // namespace hearth::gui
