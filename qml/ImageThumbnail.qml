import QtQuick
import QtQuick.Controls

// One of the chat's images, small, as a button that opens it large. The pixels come from the
// window's image provider (image://hearth-images/<sha256>), decoded at about the size shown.
AbstractButton {
    id: thumbnail
    property string sha256
    property string name
    property real side: 96
    implicitWidth: side
    implicitHeight: side
    hoverEnabled: true
    focusPolicy: Qt.TabFocus
    Accessible.role: Accessible.Button
    Accessible.name: qsTr("Image %1").arg(name)
    Accessible.description: qsTr("Opens the image large")
    Accessible.onPressAction: if (enabled) clicked()
    ToolTip.visible: hovered && name.length > 0
    ToolTip.delay: 600
    ToolTip.text: name

    background: Rectangle {
        radius: Theme.smallRadius
        color: Theme.hover
        border.width: thumbnail.visualFocus ? 2 : 1 // reached with Tab
        border.color: thumbnail.visualFocus ? Theme.accent : (thumbnail.hovered ? Theme.textFaint : Theme.border)
    }
    contentItem: Item {
        Image {
            id: picture
            objectName: "thumbnailImage"
            anchors.fill: parent
            anchors.margins: 2
            source: thumbnail.sha256.length > 0 ? "image://hearth-images/" + thumbnail.sha256 : ""
            // Room for the crop and a sharper picture on dense screens.
            sourceSize: Qt.size(thumbnail.side * 2, thumbnail.side * 2)
            fillMode: Image.PreserveAspectCrop
            asynchronous: true
            clip: true
        }
        Icon {
            anchors.centerIn: parent
            visible: picture.status !== Image.Ready
            path: Icons.image
            size: Math.min(28, thumbnail.side / 2)
            color: Theme.textFaint
        }
    }
}
