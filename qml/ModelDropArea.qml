import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Covers the window: a file dragged over it shows whether it can be loaded;
// dropping it goes through the controller's loadDroppedFiles, which refuses
// anything but one GGUF model file (several files, a folder, another kind of
// file) with a message saying why.
DropArea {
    id: area
    // Needs isModelUrl(url) and loadDroppedFiles(urls) (a ModelController).
    property var controller
    readonly property bool hovering: containsDrag
    property bool acceptable: false
    signal dropHandled(bool accepted)

    keys: ["text/uri-list"]

    function canAccept(urls) {
        return urls.length === 1 && controller.isModelUrl(urls[0])
    }
    function handleDrop(urls) {
        if (urls.length === 0)
            return false
        const accepted = controller.loadDroppedFiles(urls)
        dropHandled(accepted)
        return accepted
    }

    onEntered: function (drag) {
        acceptable = canAccept(drag.urls)
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
                    text: area.acceptable ? qsTr("Drop to load this model") : qsTr("Only one .gguf model file can be loaded")
                    color: "white"
                    font.pointSize: Theme.large
                    font.weight: Font.DemiBold
                }
            }
        }
    }
}
