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
    // Multisampled layer for smooth edges on the GPU; the software renderer antialiases paths itself.
    layer.enabled: GraphicsInfo.api !== GraphicsInfo.Software
    layer.samples: 4

    Shape {
        width: 24
        height: 24
        transform: Scale { xScale: icon.size / 24; yScale: icon.size / 24 }
        ShapePath {
            strokeWidth: -1
            strokeColor: "transparent"
            fillColor: icon.color
            fillRule: ShapePath.OddEvenFill
            PathSvg { path: icon.path }
        }
    }
}
