import QtQuick
import QtQuick.Shapes

// A single-colour icon from SVG path data in a 24 x 24 view box (see Icons.qml).
Item {
    id: icon
    property string path
    property color color: Theme.text
    property real size: 20
    implicitWidth: size
    implicitHeight: size

    Shape {
        anchors.centerIn: parent
        width: 24
        height: 24
        scale: icon.size / 24
        layer.enabled: true
        layer.samples: 4
        layer.smooth: true
        ShapePath {
            strokeWidth: -1
            fillColor: icon.color
            fillRule: ShapePath.OddEvenFill
            PathSvg { path: icon.path }
        }
    }
}
