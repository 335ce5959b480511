import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The keyboard shortcuts, opened with F1. Drawn with plain rectangles, as the other dialogs:
// the software renderer draws no layer effects.
Popup {
    id: dialog
    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 460, 460)
    modal: true
    dim: true
    focus: true
    padding: 24
    closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutside

    readonly property var shortcuts: [
        ["Ctrl+N", qsTr("New chat")],
        ["Ctrl+K, Ctrl+F", qsTr("Search chats")],
        ["Ctrl+L", qsTr("Write a message")],
        ["Enter", qsTr("Send the message")],
        ["Shift+Enter", qsTr("New line in the message")],
        ["Esc", qsTr("Stop the reply; clear the search")],
        ["F2, Delete", qsTr("Rename or delete the chat in the list")],
        ["Ctrl+O", qsTr("Open a model file")],
        ["Ctrl+,", qsTr("Settings")],
        ["F1", qsTr("These shortcuts")],
        ["Ctrl+Q", qsTr("Quit")]
    ]

    background: Rectangle {
        color: Theme.surface
        radius: Theme.radius
        border.color: Theme.border
    }
    Overlay.modal: Rectangle { color: Theme.dark ? Qt.rgba(0, 0, 0, 0.6) : Qt.rgba(0, 0, 0, 0.4) }

    contentItem: ColumnLayout {
        spacing: 14
        Accessible.role: Accessible.Dialog
        Accessible.name: qsTr("Keyboard shortcuts")
        Label {
            text: qsTr("Keyboard shortcuts")
            font.pointSize: Theme.large
            font.weight: Font.DemiBold
            color: Theme.text
        }
        GridLayout {
            objectName: "shortcutsList"
            columns: 2
            columnSpacing: 18
            rowSpacing: 8
            Layout.fillWidth: true
            Repeater {
                model: dialog.shortcuts.length * 2
                Label {
                    required property int index
                    readonly property bool isKey: index % 2 === 0
                    text: dialog.shortcuts[Math.floor(index / 2)][isKey ? 0 : 1]
                    color: isKey ? Theme.text : Theme.textMuted
                    font.family: isKey ? Theme.monoFamily : dialog.font.family
                    font.pointSize: Theme.fontSize
                    wrapMode: Text.Wrap
                    Layout.fillWidth: !isKey
                    Layout.alignment: Qt.AlignTop
                }
            }
        }
        PillButton {
            objectName: "shortcutsCloseButton"
            Layout.alignment: Qt.AlignRight
            text: qsTr("Close")
            onClicked: dialog.close()
        }
    }
}
