// Icon paths (SVG path data) into QPainterPaths: every icon of Icons.qml is read whole, arcs land
// on their circles, relative commands follow the current point, and malformed data is refused.
#include "app/gui/main_window.h"
#include "qml/icon_painter.h"

#include <QGuiApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QTest>
#include <QtMath>
#include <cmath>
#include <memory>

using hearth::gui::parseSvgPath;

namespace {

double distance(QPointF a, QPointF b) {
    return std::hypot(a.x() - b.x(), a.y() - b.y());
}

} // namespace

class TestIconPainter : public QObject {
    Q_OBJECT
private slots:
    void linesAndRelativeCommands() {
        const auto path = parseSvgPath(QStringLiteral("M2 3 h4 v5 l-4 0 Z m10 0 L20,3 20 8 Z"));
        QVERIFY(path.has_value());
        QCOMPARE(path->elementCount(), 9); // two subpaths: move + 3 lines + close, move + 2 lines + close
        QCOMPARE(QPointF(path->elementAt(1)), QPointF(6, 3));
        QCOMPARE(QPointF(path->elementAt(2)), QPointF(6, 8));
        QCOMPARE(QPointF(path->elementAt(3)), QPointF(2, 8));
        QCOMPARE(QPointF(path->elementAt(5)), QPointF(12, 3)); // relative to the first subpath's start
        QCOMPARE(path->boundingRect(), QRectF(2, 3, 18, 5));
    }

    // "A" with both flags: each arc's points lie on its circle, on the side the flags choose.
    void arcsLieOnTheirCircle_data() {
        QTest::addColumn<QString>("data");
        QTest::addColumn<QPointF>("centre");
        QTest::addColumn<QPointF>("midpoint");
        // From the top of a circle of radius 8 about (12, 12) to its right.
        QTest::newRow("small, clockwise")
            << "M12 4 A8 8 0 0 1 20 12" << QPointF(12, 12) << QPointF(12 + 8 / M_SQRT2, 12 - 8 / M_SQRT2);
        QTest::newRow("large, counter-clockwise")
            << "M12 4 A8 8 0 1 0 20 12" << QPointF(12, 12) << QPointF(12 - 8 / M_SQRT2, 12 + 8 / M_SQRT2);
        QTest::newRow("small, counter-clockwise")
            << "M12 4 A8 8 0 0 0 20 12" << QPointF(20, 4) << QPointF(20 - 8 / M_SQRT2, 4 + 8 / M_SQRT2);
        QTest::newRow("relative, flags run together")
            << "M12 4 a8 8 0 018 8" << QPointF(12, 12) << QPointF(12 + 8 / M_SQRT2, 12 - 8 / M_SQRT2);
    }
    void arcsLieOnTheirCircle() {
        QFETCH(QString, data);
        QFETCH(QPointF, centre);
        QFETCH(QPointF, midpoint);
        const auto path = parseSvgPath(data);
        QVERIFY(path.has_value());
        for (double t = 0; t <= 1.0; t += 0.125)
            QVERIFY2(std::fabs(distance(path->pointAtPercent(t), centre) - 8) < 0.05,
                     qPrintable(QStringLiteral("t %1: %2 from the centre")
                                    .arg(t)
                                    .arg(distance(path->pointAtPercent(t), centre))));
        QVERIFY(distance(path->pointAtPercent(1), QPointF(20, 12)) < 1e-6);
        QVERIFY2(distance(path->pointAtPercent(0.5), midpoint) < 0.05,
                 qPrintable(QStringLiteral("midpoint (%1, %2)")
                                .arg(path->pointAtPercent(0.5).x())
                                .arg(path->pointAtPercent(0.5).y())));
    }

    void malformedDataIsRefused() {
        for (const char* bad :
             {"4 4 L 5 5", "M1", "M1 2 X3 4", "M1 2 A1 1 0 2 0 3 4", "M1 2 Z 3 4", "M1 2 L."})
            QVERIFY2(!parseSvgPath(QString::fromLatin1(bad)).has_value(), bad);
        QVERIFY(parseSvgPath(QString()).has_value()); // nothing to draw
    }

    // Every icon the app draws is read whole and lies in its 24 x 24 box.
    void everyIconOfTheAppParses() {
        hearth::app::prepareQuick(); // and the app's QML modules, linked with it
        QQmlEngine engine;
        engine.addImportPath(QStringLiteral("qrc:/"));
        QQmlComponent component(&engine);
        component.setData("import QtQuick\nimport Hearth\nQtObject { property var icons: Icons }", QUrl());
        std::unique_ptr<QObject> root(component.create());
        QVERIFY2(root, qPrintable(component.errorString()));
        QObject* icons = root->property("icons").value<QObject*>();
        QVERIFY(icons);
        int checked = 0;
        const QMetaObject* meta = icons->metaObject();
        for (int i = meta->propertyOffset(); i < meta->propertyCount(); ++i) {
            const QString name = QString::fromLatin1(meta->property(i).name());
            const QVariant value = meta->property(i).read(icons);
            if (value.typeId() != QMetaType::QString) continue;
            const auto path = parseSvgPath(value.toString());
            QVERIFY2(path.has_value(), qPrintable(name));
            QVERIFY2(!path->isEmpty(), qPrintable(name));
            QVERIFY2(QRectF(-0.01, -0.01, 24.02, 24.02).contains(path->boundingRect()), qPrintable(name));
            ++checked;
        }
        QVERIFY(checked >= 20);
    }
};

QTEST_MAIN(TestIconPainter)
#include "test_icon_painter.moc"
