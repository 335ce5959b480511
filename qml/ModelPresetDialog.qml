import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One model file's own settings (PresetController): each value is either the global setting or
// the model's own, chosen by its check box (changing a value checks it). Saved, they apply
// whenever the file is loaded; "Use global settings" forgets them. A chat template that does not
// parse is refused with the parser's line and column, and the dialog keeps what was typed.
Popup {
    id: dialog
    objectName: "modelPresetDialog"
    property var presets: null // PresetController
    property string path
    property string modelName
    property string error: ""
    property var globals: ({})
    property bool hasPreset: false
    property bool fileChanged: false
    readonly property var rows: [systemPromptRow, temperatureRow, topKRow, topPRow, minPRow, repeatPenaltyRow,
                                 maxReplyRow, contextRow, templateRow]

    function openFor(modelPath, name) {
        path = modelPath
        modelName = name
        load()
        open()
    }
    // What the store holds for the file, and the global values for the rest.
    function load() {
        const preset = presets.modelPreset(path)
        globals = preset.globals
        hasPreset = preset.hasPreset
        fileChanged = preset.fileChanged
        error = ""
        for (const row of rows) {
            row.globalValue = globals[row.field]
            row.overridden = preset.overrides[row.field] !== undefined
            row.value = row.overridden ? preset.overrides[row.field] : globals[row.field]
        }
    }
    function overrides() {
        const values = {}
        for (const row of rows)
            if (row.overridden) values[row.field] = row.value
        return values
    }
    function save() {
        error = presets.saveModelPreset(path, overrides())
        if (error.length === 0) close()
    }
    function useGlobalSettings() {
        presets.resetModelPreset(path)
        load()
    }

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 640, 640)
    height: Math.min(parent ? parent.height - 48 : 760, 760)
    modal: true
    dim: true
    focus: true
    padding: 24
    closePolicy: Popup.CloseOnEscape

    background: Rectangle {
        color: Theme.surface
        radius: Theme.radius
        border.color: Theme.border
    }
    Overlay.modal: Rectangle { color: Theme.dark ? Qt.rgba(0, 0, 0, 0.6) : Qt.rgba(0, 0, 0, 0.4) }

    contentItem: ColumnLayout {
        spacing: 12
        Accessible.role: Accessible.Dialog
        Accessible.name: qsTr("Model settings")
        Label {
            text: qsTr("Settings for %1").arg(dialog.modelName)
            font.pointSize: Theme.large
            font.weight: Font.DemiBold
            color: Theme.text
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        Label {
            text: qsTr("Checked values are this model's own and apply whenever it is loaded; the others follow the global settings.")
            color: Theme.textMuted
            font.pointSize: Theme.small
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "presetFileChanged"
            visible: dialog.fileChanged
            text: qsTr("The file has changed since these settings were saved, so they are not applied. Save them to keep them for the file as it is now.")
            color: Theme.danger
            font.pointSize: Theme.small
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        ScrollView {
            id: scroll
            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            clip: true
            ColumnLayout {
                width: scroll.availableWidth
                spacing: 10

                FieldRow {
                    id: systemPromptRow
                    field: "systemPrompt"
                    title: qsTr("System prompt")
                    TextArea {
                        objectName: "presetSystemPrompt"
                        width: parent.width
                        wrapMode: TextEdit.Wrap
                        text: systemPromptRow.value !== undefined ? systemPromptRow.value : ""
                        color: Theme.text
                        Accessible.name: qsTr("System prompt")
                        onTextChanged: if (text !== systemPromptRow.value) systemPromptRow.edit(text)
                    }
                }
                FieldRow {
                    id: temperatureRow
                    field: "temperature"
                    title: qsTr("Temperature")
                    SliderSetting {
                        objectName: "presetTemperature"
                        from: 0; to: 2; stepSize: 0.05
                        value: temperatureRow.value !== undefined ? temperatureRow.value : 0
                        onEdited: function (v) { temperatureRow.edit(v) }
                    }
                }
                FieldRow {
                    id: topKRow
                    field: "topK"
                    title: qsTr("Top-k")
                    IntSpin { row: topKRow; objectName: "presetTopK"; from: 0; to: 1000 }
                }
                FieldRow {
                    id: topPRow
                    field: "topP"
                    title: qsTr("Top-p")
                    SliderSetting {
                        objectName: "presetTopP"
                        from: 0; to: 1; stepSize: 0.01
                        value: topPRow.value !== undefined ? topPRow.value : 0
                        onEdited: function (v) { topPRow.edit(v) }
                    }
                }
                FieldRow {
                    id: minPRow
                    field: "minP"
                    title: qsTr("Min-p")
                    SliderSetting {
                        objectName: "presetMinP"
                        from: 0; to: 1; stepSize: 0.01
                        value: minPRow.value !== undefined ? minPRow.value : 0
                        onEdited: function (v) { minPRow.edit(v) }
                    }
                }
                FieldRow {
                    id: repeatPenaltyRow
                    field: "repeatPenalty"
                    title: qsTr("Repetition penalty")
                    SliderSetting {
                        objectName: "presetRepeatPenalty"
                        from: 1; to: 2; stepSize: 0.01
                        value: repeatPenaltyRow.value !== undefined ? repeatPenaltyRow.value : 1
                        onEdited: function (v) { repeatPenaltyRow.edit(v) }
                    }
                }
                FieldRow {
                    id: maxReplyRow
                    field: "maxReplyTokens"
                    title: qsTr("Maximum reply length (0: automatic)")
                    IntSpin { row: maxReplyRow; objectName: "presetMaxReply"; from: 0; to: 32768; stepSize: 64 }
                }
                FieldRow {
                    id: contextRow
                    field: "contextLength"
                    title: qsTr("Context length")
                    IntSpin { row: contextRow; objectName: "presetContext"; from: 64; to: 131072; stepSize: 512 }
                }
                FieldRow {
                    id: templateRow
                    field: "chatTemplate"
                    title: qsTr("Chat template (empty: the model's own)")
                    TextArea {
                        objectName: "presetChatTemplate"
                        width: parent.width
                        wrapMode: TextEdit.Wrap
                        font.family: Theme.monoFamily
                        text: templateRow.value !== undefined ? templateRow.value : ""
                        color: Theme.text
                        Accessible.name: qsTr("Chat template")
                        onTextChanged: if (text !== templateRow.value) templateRow.edit(text)
                    }
                }
            }
        }

        Label {
            objectName: "presetError"
            visible: dialog.error.length > 0
            text: dialog.error
            color: Theme.danger
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            PillButton {
                objectName: "presetUseGlobal"
                text: qsTr("Use global settings")
                tip: qsTr("Forget this model's own settings")
                enabled: dialog.hasPreset
                onClicked: dialog.useGlobalSettings()
            }
            Item { Layout.fillWidth: true }
            PillButton { objectName: "presetCancel"; text: qsTr("Cancel"); onClicked: dialog.close() }
            PillButton { objectName: "presetSave"; text: qsTr("Save"); primary: true; onClicked: dialog.save() }
        }
    }

    // A setting, with the check box that makes it the model's own.
    component FieldRow: ColumnLayout {
        id: fieldRow
        property string field
        property string title
        property bool overridden: false
        property var value
        property var globalValue // what the global settings give it: the value once unchecked
        default property alias control: holder.data
        // A value changed by hand is the model's own.
        function edit(newValue) {
            value = newValue
            overridden = true
        }
        Layout.fillWidth: true
        spacing: 4
        // The control is named after the row for screen readers, unless it names itself.
        Component.onCompleted: {
            for (let i = 0; i < holder.children.length; ++i) {
                const child = holder.children[i]
                if (child.Accessible.name.length === 0) child.Accessible.name = fieldRow.title
            }
        }
        CheckBox {
            objectName: fieldRow.field + "Override"
            text: fieldRow.title
            checked: fieldRow.overridden
            Accessible.name: qsTr("%1: this model's own").arg(fieldRow.title)
            onToggled: {
                fieldRow.overridden = checked
                if (!checked) fieldRow.value = fieldRow.globalValue
                checked = Qt.binding(() => fieldRow.overridden)
            }
        }
        Item {
            id: holder
            Layout.fillWidth: true
            Layout.leftMargin: 32
            implicitHeight: childrenRect.height
            opacity: fieldRow.overridden ? 1 : 0.6
        }
    }

    component IntSpin: SpinBox {
        id: spin
        property var row
        editable: true
        value: row && row.value !== undefined ? row.value : 0
        Accessible.name: row ? row.title : ""
        onValueModified: {
            row.edit(value)
            value = Qt.binding(() => spin.row && spin.row.value !== undefined ? spin.row.value : 0)
        }
    }
}
