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
    // A layer: multisampled for smooth edges on the GPU. The software renderer antialiases paths
    // itself but, in Qt 6.4, draws a Shape unclipped: an icon in a scrolled list (a reply's avatar)
    // showed above the list, over the chat's title. As a layer it is an image, clipped as any.
    layer.enabled: true
    layer.samples: GraphicsInfo.api !== GraphicsInfo.Software ? 4 : 0
    // The software renderer's layer keeps the image it first drew of a Shape: an icon whose
    // colour or path changed (a theme switched, while shown or hidden) kept the old one, dark on
    // dark. The layer is drawn again on each change, and whenever the icon shows.
    function redraw() { layer.enabled = false; layer.enabled = true }
    onVisibleChanged: if (visible) redraw()
    onColorChanged: redraw()
    onPathChanged: redraw()

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
