import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Covers the window: a file dragged over it shows whether it can be taken. Image files (PNG,
// JPEG, WebP) join the message being written, through the attachments' attachFiles, which says
// why when the model reads no images or a file is no image; anything else goes to the models'
// loadDroppedFiles, which refuses anything but one GGUF model file (several files, a folder,
// another kind of file) with a message saying why.
DropArea {
    id: area
    // Needs isModelUrl(url) and loadDroppedFiles(urls) (a ModelController).
    property var controller
    // Needs areImageUrls(urls), attachFiles(urls) and refusal (ChatController's ImageAttachments);
    // null: images are treated as any other file.
    property var attachments: null
    readonly property bool hovering: containsDrag
    property bool acceptable: false
    property string message: ""
    signal dropHandled(bool accepted)
    // Images were dropped: they are for the chat, which should show (before they are read, so
    // that what is said about them shows there).
    signal imagesDropped()

    keys: ["text/uri-list"]

    function isImageDrop(urls) {
        return attachments !== null && attachments.areImageUrls(urls)
    }
    function canAccept(urls) {
        if (isImageDrop(urls))
            return attachments.refusal.length === 0
        return urls.length === 1 && controller.isModelUrl(urls[0])
    }
    function messageFor(urls) {
        if (isImageDrop(urls))
            return attachments.refusal.length > 0 ? attachments.refusal
                 : urls.length === 1 ? qsTr("Drop to attach this image to your message")
                 : qsTr("Drop to attach these %1 images to your message").arg(urls.length)
        return canAccept(urls) ? qsTr("Drop to load this model") : qsTr("Only one .gguf model file can be loaded")
    }
    function handleDrop(urls) {
        if (urls.length === 0)
            return false
        let accepted
        if (isImageDrop(urls)) {
            imagesDropped()
            accepted = attachments.attachFiles(urls)
        } else {
            accepted = controller.loadDroppedFiles(urls)
        }
        dropHandled(accepted)
        return accepted
    }

    onEntered: function (drag) {
        acceptable = canAccept(drag.urls)
        message = messageFor(drag.urls)
        drag.accept(Qt.CopyAction) // refused files are dropped too, to say why
    }
    onDropped: function (drop) {
        handleDrop(drop.urls)
        drop.accept(Qt.CopyAction)
    }

    Rectangle {
        objectName: "dropOverlay"
        anchors.fill: parent
        visible: area.containsDrag
        color: Qt.rgba(0, 0, 0, Theme.dark ? 0.55 : 0.35)
        z: 1000
        Rectangle {
            anchors.fill: parent
            anchors.margins: 24
            radius: 24
            color: "transparent"
            border.width: 3
            border.color: area.acceptable ? Theme.accent : Theme.danger
            ColumnLayout {
                anchors.centerIn: parent
                width: Math.min(implicitWidth, parent.width - 48)
                spacing: 14
                Rectangle {
                    Layout.alignment: Qt.AlignHCenter
                    implicitWidth: 84; implicitHeight: 84; Layout.preferredWidth: 84; Layout.preferredHeight: 84; radius: 42
                    color: area.acceptable ? Theme.accent : Theme.danger
                    Icon { anchors.centerIn: parent; path: area.acceptable ? Icons.drop : Icons.close; size: 40; color: "white" }
                }
                Label {
                    objectName: "dropMessage"
                    Layout.alignment: Qt.AlignHCenter
                    Layout.fillWidth: true
                    horizontalAlignment: Text.AlignHCenter
                    wrapMode: Text.Wrap
                    text: area.message
                    color: "white"
                    font.pointSize: Theme.large
                    font.weight: Font.DemiBold
                }
            }
        }
    }
}
