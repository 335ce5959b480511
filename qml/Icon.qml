import QtQuick
import Hearth // IconPainter, a C++ type of this module

// A single-colour icon from SVG path data in a 24 x 24 view box (see Icons.qml), painted by
// IconPainter (QPainter, so clipped as any item and drawn again whenever its colour or path
// changes, shown or hidden).
Item {
    id: icon
    property string path
    property color color: Theme.text
    property real size: 20
    implicitWidth: size
    implicitHeight: size

    IconPainter {
        width: icon.size
        height: icon.size
        path: icon.path
        color: icon.color
    }
}
