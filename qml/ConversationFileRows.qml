import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth.Chat

// The settings' rows for all conversations at once: export every one (Markdown, JSON or PDF)
// into the export folder (Documents) under a new name, and import Hearth's JSON or ChatGPT's
// conversations.json (from its data export). What the last one did shows below them.
ColumnLayout {
    id: rows
    property ConversationFiles files: null
    Layout.fillWidth: true
    spacing: 16

    SettingRow {
        title: qsTr("Export all conversations")
        hint: rows.files ? qsTr("Into %1, under a new name.").arg(rows.files.exportFolder) : ""
        RowLayout {
            spacing: 6
            Repeater {
                model: [{ format: "markdown", label: qsTr("Markdown") },
                        { format: "json", label: qsTr("JSON") },
                        { format: "pdf", label: qsTr("PDF") }]
                delegate: PillButton {
                    required property var modelData
                    objectName: "exportAll_" + modelData.format
                    text: modelData.label
                    Accessible.name: qsTr("Export all conversations as %1").arg(modelData.label)
                    enabled: rows.files !== null && !rows.files.busy
                    onClicked: rows.files.exportAll(modelData.format)
                }
            }
        }
    }
    SettingRow {
        title: qsTr("Import conversations")
        hint: qsTr("A JSON export of Hearth's, or conversations.json from ChatGPT's data export.")
        PillButton {
            objectName: "importConversations"
            text: qsTr("Import…")
            enabled: rows.files !== null && !rows.files.busy
            onClicked: importDialog.open()
            ChooserDialog {
                id: importDialog
                objectName: "importConversationsDialog"
                title: qsTr("Import conversations")
                nameFilters: [qsTr("Conversation files (*.json)"), qsTr("All files (*)")]
                onAccepted: rows.files.importFile(selectedFile)
            }
        }
    }
    Label {
        objectName: "conversationFilesStatus"
        visible: text.length > 0
        text: rows.files ? rows.files.status : ""
        color: rows.files && rows.files.failed ? Theme.danger : Theme.textMuted
        font.pointSize: Theme.small
        wrapMode: Text.WrapAtWordBoundaryOrAnywhere
        Layout.fillWidth: true
    }
}
