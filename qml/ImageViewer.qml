import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One of the chat's images, as large as the window allows, over a dim; Escape, a click or the
// close button closes it.
Popup {
    id: viewer
    property string sha256
    property string name

    function show(imageSha256, imageName) {
        sha256 = imageSha256
        name = imageName
        open()
    }

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: parent ? parent.width - 48 : 600
    height: parent ? parent.height - 48 : 400
    modal: true
    focus: true
    padding: 12
    closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutside
    Overlay.modal: Rectangle { color: Qt.rgba(0, 0, 0, Theme.dark ? 0.7 : 0.5) }
    background: Rectangle {
        radius: Theme.radius
        color: Theme.surface
        border.color: Theme.border
    }

    contentItem: ColumnLayout {
        spacing: 8
        Accessible.role: Accessible.Dialog
        Accessible.name: qsTr("Image %1").arg(viewer.name)
        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "imageViewerName"
                text: viewer.name
                color: Theme.text
                font.pointSize: Theme.fontSize
                elide: Text.ElideMiddle
                Layout.fillWidth: true
                Layout.leftMargin: 4
            }
            IconButton {
                objectName: "closeImageViewer"
                iconPath: Icons.close
                iconSize: 14
                tip: qsTr("Close (Esc)")
                onClicked: viewer.close()
            }
        }
        Image {
            id: picture
            objectName: "imageViewerImage"
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.preferredWidth: 1 // the room left, whatever the picture's own size
            Layout.preferredHeight: 1
            source: viewer.opened && viewer.sha256.length > 0 ? "image://hearth-images/" + viewer.sha256 : ""
            // Decoded at about the size shown (the provider never enlarges it).
            sourceSize: Qt.size(viewer.width, viewer.height)
            fillMode: Image.PreserveAspectFit
            asynchronous: true
            TapHandler { onTapped: viewer.close() }
        }
    }
}
