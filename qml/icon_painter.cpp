#include "qml/icon_painter.h"

#include <QPainter>
#include <QtMath>
#include <cmath>
#include <vector>

namespace hearth::gui {
namespace {

// Reads SVG path data: a command letter, then numbers (separated by spaces or commas, or a sign).
class PathReader {
public:
    explicit PathReader(const QString& data) : data_(data) {}

    void skipSeparators() {
        while (at_ < data_.size() && (data_[at_].isSpace() || data_[at_] == u','))
            ++at_;
    }
    [[nodiscard]] bool atEnd() {
        skipSeparators();
        return at_ >= data_.size();
    }
    [[nodiscard]] bool atCommand() {
        skipSeparators();
        return at_ < data_.size() && data_[at_].isLetter();
    }
    QChar command() { return data_[at_++]; }
    std::optional<double> number() {
        skipSeparators();
        const qsizetype start = at_;
        if (at_ < data_.size() && (data_[at_] == u'-' || data_[at_] == u'+')) ++at_;
        bool digits = false, point = false;
        while (at_ < data_.size() && (data_[at_].isDigit() || (data_[at_] == u'.' && !point))) {
            point = point || data_[at_] == u'.';
            digits = digits || data_[at_].isDigit();
            ++at_;
        }
        if (!digits) return std::nullopt;
        bool ok = false;
        const double v = data_.mid(start, at_ - start).toDouble(&ok);
        return ok ? std::optional<double>(v) : std::nullopt;
    }
    // An arc's flag: one digit, 0 or 1, which SVG lets run into the next number.
    std::optional<bool> flag() {
        skipSeparators();
        if (at_ < data_.size() && (data_[at_] == u'0' || data_[at_] == u'1')) return data_[at_++] == u'1';
        return std::nullopt;
    }

private:
    const QString& data_;
    qsizetype at_ = 0;
};

// SVG's elliptical arc from `from` to `to` (radii rx, ry; rotation 0 only, as Icons.qml's are),
// through its centre form (SVG 1.1, appendix F.6).
void arcTo(QPainterPath& path, QPointF from, QPointF to, double rx, double ry, bool largeArc, bool sweep) {
    if (from == to) return;
    if (rx == 0 || ry == 0) {
        path.lineTo(to);
        return;
    }
    rx = std::fabs(rx);
    ry = std::fabs(ry);
    const double x1 = (from.x() - to.x()) / 2, y1 = (from.y() - to.y()) / 2;
    const double scale = x1 * x1 / (rx * rx) + y1 * y1 / (ry * ry);
    if (scale > 1) {
        rx *= std::sqrt(scale);
        ry *= std::sqrt(scale);
    }
    const double numerator = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
    const double denominator = rx * rx * y1 * y1 + ry * ry * x1 * x1;
    double coefficient = std::sqrt(std::max(0.0, numerator / denominator));
    if (largeArc == sweep) coefficient = -coefficient;
    const double cx1 = coefficient * rx * y1 / ry, cy1 = -coefficient * ry * x1 / rx;
    const double cx = cx1 + (from.x() + to.x()) / 2, cy = cy1 + (from.y() + to.y()) / 2;
    const double start = std::atan2((y1 - cy1) / ry, (x1 - cx1) / rx);
    double delta = std::atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx) - start;
    if (!sweep && delta > 0) delta -= 2 * M_PI;
    if (sweep && delta < 0) delta += 2 * M_PI;
    // QPainterPath's angles turn the other way: counter-clockwise on screen, y pointing down.
    path.arcTo(QRectF(cx - rx, cy - ry, 2 * rx, 2 * ry), -qRadiansToDegrees(start),
               -qRadiansToDegrees(delta));
}

} // namespace

std::optional<QPainterPath> parseSvgPath(const QString& data) {
    QPainterPath path;
    path.setFillRule(Qt::OddEvenFill);
    PathReader in(data);
    QPointF current, subpathStart;
    QChar command;
    while (!in.atEnd()) {
        if (in.atCommand())
            command = in.command();
        else if (command.isNull())
            return std::nullopt; // numbers before any command
        const bool relative = command.isLower();
        const QPointF origin = relative ? current : QPointF();
        std::vector<double> v;
        const auto read = [&](int count) {
            for (int i = 0; i < count; ++i) {
                const std::optional<double> n = in.number();
                if (!n) return false;
                v.push_back(*n);
            }
            return true;
        };
        switch (command.toUpper().unicode()) {
        case 'M':
            if (!read(2)) return std::nullopt;
            current = origin + QPointF(v[0], v[1]);
            path.moveTo(current);
            subpathStart = current;
            command = relative ? QChar(u'l') : QChar(u'L'); // further pairs are lines
            break;
        case 'L':
            if (!read(2)) return std::nullopt;
            current = origin + QPointF(v[0], v[1]);
            path.lineTo(current);
            break;
        case 'H':
            if (!read(1)) return std::nullopt;
            current.setX((relative ? current.x() : 0) + v[0]);
            path.lineTo(current);
            break;
        case 'V':
            if (!read(1)) return std::nullopt;
            current.setY((relative ? current.y() : 0) + v[0]);
            path.lineTo(current);
            break;
        case 'C':
            if (!read(6)) return std::nullopt;
            path.cubicTo(origin + QPointF(v[0], v[1]), origin + QPointF(v[2], v[3]),
                         origin + QPointF(v[4], v[5]));
            current = origin + QPointF(v[4], v[5]);
            break;
        case 'Q':
            if (!read(4)) return std::nullopt;
            path.quadTo(origin + QPointF(v[0], v[1]), origin + QPointF(v[2], v[3]));
            current = origin + QPointF(v[2], v[3]);
            break;
        case 'A': {
            if (!read(3)) return std::nullopt;
            const std::optional<bool> largeArc = in.flag(), sweep = in.flag();
            if (!largeArc || !sweep || !read(2)) return std::nullopt;
            const QPointF to = origin + QPointF(v[3], v[4]);
            arcTo(path, current, to, v[0], v[1], *largeArc, *sweep);
            current = to;
            break;
        }
        case 'Z':
            path.closeSubpath();
            current = subpathStart;
            command = QChar(); // numbers after Z need a command first
            break;
        default:
            return std::nullopt;
        }
    }
    return path;
}

IconPainter::IconPainter(QQuickItem* parent) : QQuickPaintedItem(parent) {
    setAntialiasing(true);
}

void IconPainter::setPath(const QString& data) {
    if (data == pathData_) return;
    pathData_ = data;
    path_ = parseSvgPath(data).value_or(QPainterPath());
    update();
    emit pathChanged();
}

void IconPainter::setColor(const QColor& color) {
    if (color == color_) return;
    color_ = color;
    update();
    emit colorChanged();
}

void IconPainter::paint(QPainter* painter) {
    painter->setRenderHint(QPainter::Antialiasing);
    painter->scale(width() / 24.0, height() / 24.0);
    painter->fillPath(path_, color_);
}

} // namespace hearth::gui
