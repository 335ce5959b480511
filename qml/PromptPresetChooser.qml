import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The chat header's choice of system prompt for the conversation shown: the default (the loaded
// model's or the global setting's) or one of the library's (PresetController). The choice is the
// conversation's, kept across restarts; "Manage prompts…" opens the library's editor.
PillButton {
    id: chooser
    objectName: "promptPresetChooser"
    property var presets: null     // PresetController
    property string conversationId // "" for the new chat not yet sent
    // The chosen preset's id ("" the default), re-read whenever a choice changes.
    readonly property string chosenId: presets ? (presets.choiceRevision, presets.presetIdFor(conversationId)) : ""
    readonly property string chosenName: {
        if (!presets || chosenId.length === 0) return qsTr("Default prompt")
        presets.prompts.revision // re-read on a rename
        const name = presets.prompts.nameOf(chosenId)
        return name.length > 0 ? name : qsTr("Default prompt")
    }
    // The icon alone where the header is narrow: the chat's title keeps the room.
    property bool compact: false
    iconPath: Icons.edit
    text: compact ? "" : chosenName
    tip: qsTr("System prompt of this chat: %1").arg(chosenName)
    Accessible.name: qsTr("System prompt: %1").arg(chosenName)
    onClicked: menu.open()

    function choose(presetId) {
        presets.choosePrompt(conversationId, presetId)
        menu.close()
    }

    Popup {
        id: menu
        objectName: "promptPresetMenu"
        y: chooser.height + 4
        width: 280
        padding: 4
        focus: true
        background: Rectangle {
            color: Theme.surfaceRaised
            radius: Theme.smallRadius
            border.color: Theme.border
        }
        contentItem: ColumnLayout {
            spacing: 0
            MenuEntry {
                objectName: "promptPresetDefault"
                text: qsTr("Default prompt")
                current: chooser.chosenId.length === 0
                onClicked: chooser.choose("")
            }
            Repeater {
                model: chooser.presets ? chooser.presets.prompts : null
                MenuEntry {
                    required property string presetId
                    required property string name
                    required property int index
                    objectName: "promptPreset_" + index
                    text: name
                    current: chooser.chosenId === presetId
                    onClicked: chooser.choose(presetId)
                }
            }
            Rectangle { Layout.fillWidth: true; implicitHeight: 1; color: Theme.border }
            MenuEntry {
                objectName: "managePrompts"
                text: qsTr("Manage prompts…")
                onClicked: { menu.close(); library.open() }
            }
        }
    }

    PromptLibraryDialog {
        id: library
        presets: chooser.presets
    }

    component MenuEntry: ItemDelegate {
        id: entry
        property bool current: false // the chat's choice
        Layout.fillWidth: true
        implicitHeight: 34
        Accessible.onPressAction: clicked()
        contentItem: Label {
            text: entry.text
            elide: Text.ElideRight
            verticalAlignment: Text.AlignVCenter
            color: entry.current ? Theme.accent : Theme.text
            font.pointSize: Theme.fontSize
            font.weight: entry.current ? Font.DemiBold : Font.Normal
        }
        background: Rectangle {
            radius: Theme.smallRadius - 2
            color: entry.hovered || entry.visualFocus ? Theme.selected : "transparent"
        }
    }
}
