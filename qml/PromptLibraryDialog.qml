import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The library of system prompts (PresetController): the list on the left, the chosen one's name
// and text on the right; New, Save and Delete. A chat chooses among them in its header.
Popup {
    id: dialog
    objectName: "promptLibraryDialog"
    property var presets: null // PresetController
    property string selectedId: ""

    function select(presetId) {
        selectedId = presetId
        nameField.text = presets.prompts.nameOf(presetId)
        promptField.text = presets.prompts.promptOf(presetId)
    }
    function createNew() {
        select(presets.createPrompt(qsTr("New prompt"), ""))
        nameField.forceActiveFocus()
        nameField.selectAll()
    }
    function save() {
        if (selectedId.length === 0) return
        presets.renamePrompt(selectedId, nameField.text)
        presets.editPrompt(selectedId, promptField.text)
    }
    function remove() {
        if (selectedId.length === 0) return
        presets.deletePrompt(selectedId)
        select(presets.prompts.idAt(0))
    }

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 720, 720)
    height: Math.min(parent ? parent.height - 48 : 520, 520)
    modal: true
    dim: true
    focus: true
    padding: 24
    closePolicy: Popup.CloseOnEscape
    onOpened: if (selectedId.length === 0 || presets.prompts.rowOf(selectedId) < 0) select(presets.prompts.idAt(0))

    background: Rectangle {
        color: Theme.surface
        radius: Theme.radius
        border.color: Theme.border
    }
    Overlay.modal: Rectangle { color: Theme.dark ? Qt.rgba(0, 0, 0, 0.6) : Qt.rgba(0, 0, 0, 0.4) }

    contentItem: ColumnLayout {
        spacing: 12
        Accessible.role: Accessible.Dialog
        Accessible.name: qsTr("System prompts")
        Label {
            text: qsTr("System prompts")
            font.pointSize: Theme.large
            font.weight: Font.DemiBold
            color: Theme.text
        }
        RowLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 16
            ListView {
                id: list
                objectName: "promptLibraryList"
                Layout.preferredWidth: 200
                Layout.fillHeight: true
                clip: true
                model: dialog.presets ? dialog.presets.prompts : null
                delegate: ItemDelegate {
                    id: row
                    required property string presetId
                    required property string name
                    required property int index
                    objectName: "promptLibraryRow_" + index
                    width: ListView.view.width
                    height: 34
                    text: name
                    Accessible.onPressAction: clicked()
                    onClicked: dialog.select(presetId)
                    contentItem: Label {
                        text: row.name
                        elide: Text.ElideRight
                        verticalAlignment: Text.AlignVCenter
                        color: row.presetId === dialog.selectedId ? Theme.accent : Theme.text
                        font.pointSize: Theme.fontSize
                    }
                    background: Rectangle {
                        radius: Theme.smallRadius - 2
                        color: row.presetId === dialog.selectedId ? Theme.selected : row.hovered ? Theme.hover : "transparent"
                    }
                }
            }
            ColumnLayout {
                Layout.fillWidth: true
                Layout.fillHeight: true
                spacing: 8
                enabled: dialog.selectedId.length > 0
                TextField {
                    id: nameField
                    objectName: "promptNameField"
                    Layout.fillWidth: true
                    placeholderText: qsTr("Name")
                    Accessible.name: qsTr("Prompt name")
                    color: Theme.text
                }
                ScrollView {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    TextArea {
                        id: promptField
                        objectName: "promptTextField"
                        wrapMode: TextEdit.Wrap
                        placeholderText: qsTr("You are a helpful assistant.")
                        Accessible.name: qsTr("Prompt text")
                        color: Theme.text
                    }
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            PillButton { objectName: "promptNew"; iconPath: Icons.plus; text: qsTr("New"); onClicked: dialog.createNew() }
            PillButton {
                objectName: "promptDelete"
                iconPath: Icons.trash
                text: qsTr("Delete")
                danger: true
                enabled: dialog.selectedId.length > 0
                onClicked: dialog.remove()
            }
            Item { Layout.fillWidth: true }
            PillButton { objectName: "promptClose"; text: qsTr("Close"); onClicked: dialog.close() }
            PillButton {
                objectName: "promptSave"
                text: qsTr("Save")
                primary: true
                enabled: dialog.selectedId.length > 0 && nameField.text.trim().length > 0
                onClicked: dialog.save()
            }
        }
    }
}
