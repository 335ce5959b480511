import QtQuick
import QtQuick.Controls

// The images attached to the message being written, in the composer: a thumbnail each (a click
// shows it large) with a button that takes it off, and a busy sign while files are read.
Flow {
    id: strip
    property var attachments: null // ChatController's ImageAttachments
    property real side: 56
    signal imageOpened(string sha256, string name)
    spacing: 8

    Repeater {
        model: strip.attachments
        delegate: Item {
            id: attached
            required property int index
            required property string sha256
            required property string name
            objectName: "attachedImage"
            width: strip.side + 6
            height: strip.side + 6
            ImageThumbnail {
                y: 6
                side: strip.side
                sha256: attached.sha256
                name: attached.name
                onClicked: strip.imageOpened(attached.sha256, attached.name)
            }
            IconButton {
                id: removeButton
                objectName: "removeImageButton"
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.rightMargin: -4
                implicitWidth: 22
                implicitHeight: 22
                iconSize: 11
                iconPath: Icons.close
                iconColor: Theme.text
                tip: qsTr("Remove %1").arg(attached.name)
                background: Rectangle {
                    radius: width / 2
                    color: removeButton.hovered ? Theme.selected : Theme.surfaceRaised
                    border.width: removeButton.visualFocus ? 2 : 1
                    border.color: removeButton.visualFocus ? Theme.accent : Theme.border
                }
                onClicked: strip.attachments.remove(attached.index)
            }
        }
    }
    BusyIndicator {
        objectName: "attachmentsReading"
        visible: strip.attachments !== null && strip.attachments.reading
        running: visible
        width: strip.side
        height: strip.side
        Accessible.name: qsTr("Reading the images")
    }
}
