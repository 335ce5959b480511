import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The settings' rows for speculative decoding: off, prompt lookup (with the tokens it looks up)
// or a draft model chosen among the models folder's files, and the most tokens drafted per
// verify pass. The chat's replies and the local API server's follow it. The rows a choice does
// not use stay in place, disabled (as the GPU's layers do), so that the page does not reflow.
ColumnLayout {
    id: speculation
    property var settings // AppSettings
    property var models: null // ModelController: the folder's files to draft with (null: none offered)
    readonly property var modes: ["off", "lookup", "draft"]
    readonly property bool on: settings.speculation !== "off"
    // The folder's files, and the draft chosen before if the folder no longer holds it.
    readonly property var draftFiles: {
        const files = models ? Array.from(models.modelFiles) : []
        if (settings.draftModelPath.length > 0 && files.indexOf(settings.draftModelPath) < 0)
            files.unshift(settings.draftModelPath)
        return files
    }
    function fileName(path) { return path.substring(path.lastIndexOf("/") + 1) }

    Layout.fillWidth: true
    spacing: 16

    SettingRow {
        title: qsTr("Speculative decoding")
        hint: qsTr("Drafts the next tokens and checks them in one pass of the model: the same replies, often sooner. Prompt lookup drafts from what the conversation already holds; a draft model is a smaller model of the same family.")
        ThemedComboBox {
            objectName: "speculationCombo"
            width: 200
            model: [qsTr("Off"), qsTr("Prompt lookup"), qsTr("Draft model")]
            currentIndex: Math.max(0, speculation.modes.indexOf(speculation.settings.speculation))
            onActivated: function (index) {
                speculation.settings.speculation = speculation.modes[index]
                currentIndex = Qt.binding(() => Math.max(0, speculation.modes.indexOf(speculation.settings.speculation)))
            }
            Accessible.name: qsTr("Speculative decoding")
        }
    }
    SettingRow {
        enabled: speculation.settings.speculation === "draft"
        title: qsTr("Draft model")
        hint: speculation.draftFiles.length === 0
              ? qsTr("No model files in the models folder: add a small model of the same vocabulary.")
              : qsTr("A smaller model with the loaded model's vocabulary, from the models folder.")
        ThemedComboBox {
            objectName: "draftModelCombo"
            width: 260
            model: speculation.draftFiles.map(path => speculation.fileName(path))
            currentIndex: speculation.draftFiles.indexOf(speculation.settings.draftModelPath)
            displayText: currentIndex < 0 ? qsTr("Choose a file…") : currentText
            onActivated: function (index) {
                speculation.settings.draftModelPath = speculation.draftFiles[index]
                currentIndex = Qt.binding(() => speculation.draftFiles.indexOf(speculation.settings.draftModelPath))
            }
            Accessible.name: qsTr("Draft model")
        }
    }
    SettingRow {
        enabled: speculation.settings.speculation === "lookup"
        title: qsTr("Tokens looked up")
        hint: qsTr("The longest run of recent tokens looked for earlier in the conversation (shorter runs are tried after it).")
        SpinBox {
            objectName: "lookupNgramSpin"
            from: 1; to: 4
            value: speculation.settings.lookupNgram
            onValueModified: { speculation.settings.lookupNgram = value; value = Qt.binding(() => speculation.settings.lookupNgram) }
        }
    }
    SettingRow {
        enabled: speculation.on
        title: qsTr("Most tokens drafted")
        hint: qsTr("Per verify pass; fewer are drafted while few are accepted.")
        SpinBox {
            objectName: "draftMaxSpin"
            from: 1; to: 16
            value: speculation.settings.draftMax
            onValueModified: { speculation.settings.draftMax = value; value = Qt.binding(() => speculation.settings.draftMax) }
        }
    }
}
