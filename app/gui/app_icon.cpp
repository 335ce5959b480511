#include "app/gui/app_icon.h"
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace hearth::app {

namespace {
// The flame of hearth.svg: a tip at (cx, top), a round base of radius r centred at (cx, baseY).
QPainterPath flame(double cx, double top, double r, double baseY, double notch) {
    QPainterPath p;
    p.moveTo(cx, top);
    p.cubicTo(cx + 0.15 * r, baseY - 1.3 * r, cx + r, baseY - 0.95 * r, cx + r, baseY);
    p.arcTo(QRectF(cx - r, baseY - r, 2 * r, 2 * r), 0, -180);
    p.cubicTo(cx - r, baseY - 0.55 * r, cx - 0.7 * r, baseY - 0.8 * r, cx - 0.55 * r, baseY - notch * r);
    p.cubicTo(cx - 0.4 * r, baseY - 0.9 * r, cx - 0.3 * r, baseY - 0.7 * r, cx - 0.15 * r, baseY - 0.63 * r);
    p.cubicTo(cx - 0.08 * r, baseY - 1.0 * r, cx - 0.08 * r, baseY - 1.5 * r, cx, top);
    return p;
}
} // namespace

QIcon appIcon() {
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(size / 256.0, size / 256.0);
        QLinearGradient background(0, 0, 0, 256);
        background.setColorAt(0, QColor(0xf5, 0x9a, 0x55));
        background.setColorAt(1, QColor(0xd9, 0x50, 0x2a));
        painter.setPen(Qt::NoPen);
        painter.setBrush(background);
        painter.drawRoundedRect(QRectF(8, 8, 240, 240), 56, 56);
        painter.setBrush(QColor(0xff, 0xf3, 0xe6));
        painter.drawPath(flame(128, 36, 66, 166, 1.18));
        painter.setBrush(QColor(0xf0, 0x7b, 0x3f));
        painter.drawPath(flame(128, 132, 30, 186, 1.2));
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace hearth::app
