import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Chat

// The chat header's export of the conversation shown: Markdown, JSON or PDF, written into the
// export folder (Documents) under a name no file has yet; where it went, or what failed, shows
// under the button until dismissed. Drawn with plain rectangles: the software renderer draws
// no shader effects.
IconButton {
    id: button
    property ChatController chat: null
    readonly property ConversationFiles files: chat ? chat.files : null
    objectName: "exportConversation"
    iconPath: Icons.drop
    tip: qsTr("Export this conversation")
    enabled: files !== null && !files.busy && chat.currentConversationId.length > 0
    onClicked: formats.open()
    // Its popups belong to the chat: another page closes them.
    onVisibleChanged: if (!visible) { formats.close(); result.close() }

    QtObject {
        id: internal
        property bool waiting: false // an export of this button's is being written
        function exportAs(format) {
            formats.close()
            waiting = true
            button.files.exportConversation(button.chat.currentConversationId, format)
        }
    }
    Connections {
        target: button.files
        function onFinished() {
            if (!internal.waiting) return
            internal.waiting = false
            // What this export did, kept: an import in the settings says its own.
            result.message = button.files.status
            result.failed = button.files.failed
            result.open()
        }
    }

    Popup {
        id: formats
        objectName: "exportFormats"
        y: button.height + 4
        x: button.width - width
        padding: 6
        // Takes the keyboard: opened from the keyboard, the first format has the focus, Tab
        // walks the formats and Escape closes them.
        focus: true
        onOpened: formatList.itemAt(0).forceActiveFocus(Qt.TabFocusReason)
        background: Rectangle { color: Theme.surface; border.color: Theme.border; radius: Theme.smallRadius }
        contentItem: ColumnLayout {
            spacing: 4
            Repeater {
                id: formatList
                model: [{ format: "markdown", label: qsTr("Markdown (.md)") },
                        { format: "json", label: qsTr("JSON, for Hearth (.json)") },
                        { format: "pdf", label: qsTr("PDF (.pdf)") }]
                delegate: PillButton {
                    required property var modelData
                    objectName: "exportAs_" + modelData.format
                    Layout.fillWidth: true
                    text: modelData.label
                    onClicked: internal.exportAs(modelData.format)
                }
            }
        }
    }

    Popup {
        id: result
        property string message
        property bool failed: false
        objectName: "exportResult"
        y: button.height + 4
        x: button.width - width
        width: 380
        padding: 12
        background: Rectangle { color: Theme.surface; border.color: Theme.border; radius: Theme.smallRadius }
        contentItem: RowLayout {
            spacing: 8
            Label {
                objectName: "exportResultText"
                text: result.message
                color: result.failed ? Theme.danger : Theme.text
                wrapMode: Text.WrapAtWordBoundaryOrAnywhere // a path has no spaces to wrap at
                Layout.fillWidth: true
            }
            IconButton {
                iconPath: Icons.close
                iconSize: 14
                tip: qsTr("Dismiss")
                onClicked: result.close()
            }
        }
    }
}
