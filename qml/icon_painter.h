#pragma once
// Paints one icon of Icons.qml: SVG path data in a 24 x 24 view box (the commands M, L, H, V, C,
// Q, A and Z, absolute or relative), filled even-odd in one colour, scaled to the item. Drawn
// with QPainter: Qt 6.4's software renderer drew Shapes unclipped and, behind the layer that
// clipped them, crashed now and then in QQuickShape::updatePaintNode.
#include <QColor>
#include <QPainterPath>
#include <QQuickPaintedItem>
#include <QString>
#include <QtQml/qqmlregistration.h>
#include <optional>

namespace hearth::gui {

// The path that `data` (SVG path syntax) describes, or none where it is malformed.
std::optional<QPainterPath> parseSvgPath(const QString& data);

class IconPainter : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString path READ path WRITE setPath NOTIFY pathChanged)
    Q_PROPERTY(QColor color READ color WRITE setColor NOTIFY colorChanged)

public:
    explicit IconPainter(QQuickItem* parent = nullptr);

    [[nodiscard]] QString path() const { return pathData_; }
    void setPath(const QString& data);
    [[nodiscard]] QColor color() const { return color_; }
    void setColor(const QColor& color);

    void paint(QPainter* painter) override;

signals:
    void pathChanged();
    void colorChanged();

private:
    QString pathData_;
    QPainterPath path_;
    QColor color_;
};

} // namespace hearth::gui
