import QtQuick
import QtTest
import Hearth

// The settings panel shows the AppSettings values and writes the user's changes
// back at once (testSettings is a real AppSettings on a temp file).
Item {
    id: root
    width: 1000
    height: 2000

    SettingsPanel {
        id: panel
        anchors.fill: parent
        settings: testSettings
    }

    TestCase {
        name: "SettingsPanel"
        when: windowShown

        function slider(name) { return findChild(findChild(panel, name), "slider") }

        function test_followsTheSettings() {
            testSettings.temperature = 1.2
            fuzzyCompare(slider("temperatureSetting").value, 1.2, 0.001)
            testSettings.topK = 12
            compare(findChild(panel, "topKSpin").value, 12)
            testSettings.systemPrompt = "Be kind."
            compare(findChild(panel, "systemPromptField").text, "Be kind.")
        }

        function test_sliderWritesTheSetting() {
            testSettings.temperature = 0.2
            const s = slider("temperatureSetting")
            mouseClick(s, s.leftPadding + s.availableWidth * 0.75, s.height / 2)
            fuzzyCompare(testSettings.temperature, 1.5, 0.1)
            // and still follows the setting afterwards (e.g. Reset)
            testSettings.resetSampling()
            fuzzyCompare(s.value, 0.8, 0.001)
        }

        function test_spinBoxWritesTheSetting() {
            testSettings.topK = 40
            const spin = findChild(panel, "topKSpin")
            spin.forceActiveFocus()
            keyClick(Qt.Key_Up)
            compare(testSettings.topK, 41)
            testSettings.topK = 5
            compare(spin.value, 5)
        }

        function test_themeChoice() {
            testSettings.theme = "system"
            mouseClick(findChild(panel, "theme_dark"))
            compare(testSettings.theme, "dark")
            mouseClick(findChild(panel, "theme_light"))
            compare(testSettings.theme, "light")
        }

        function test_chatTemplateField() {
            testSettings.chatTemplate = "{{ messages[0].content }}"
            const field = findChild(panel, "chatTemplateField")
            compare(field.text, "{{ messages[0].content }}")
            testSettings.chatTemplate = ""
            compare(field.text, "")
            field.forceActiveFocus()
            keyClick("{")
            keyClick(Qt.Key_Return)
            keyClick("x")
            compare(testSettings.chatTemplate, "{\nx")
            mouseClick(findChild(panel, "clearChatTemplateButton"))
            compare(testSettings.chatTemplate, "")
        }

        function test_conversationMemory() {
            testSettings.conversationMemoryMiB = 512
            const spin = findChild(panel, "conversationMemorySpin")
            compare(spin.value, 512)
            spin.forceActiveFocus()
            keyClick(Qt.Key_Up)
            compare(testSettings.conversationMemoryMiB, 768)
            testSettings.conversationMemoryMiB = 64
            compare(spin.value, 64)
        }

        // The KV cache type combos show the setting and write the user's choice back.
        function test_cacheTypeCombos() {
            testSettings.keyCacheType = "f16"
            testSettings.valueCacheType = "q4_0"
            const keys = findChild(panel, "keyCacheTypeCombo")
            const values = findChild(panel, "valueCacheTypeCombo")
            compare(keys.currentText, "f16")
            compare(values.currentText, "q4_0")
            keys.forceActiveFocus()
            keyClick(Qt.Key_Down) // a focused ComboBox moves to the next choice and activates it
            compare(testSettings.keyCacheType, "q8_0")
            testSettings.valueCacheType = "f16"
            compare(values.currentText, "f16")
        }

        function test_compressSavedStatesSwitch() {
            testSettings.compressSavedStates = false
            const toggle = findChild(panel, "compressSavedStatesSwitch")
            verify(toggle !== null)
            compare(toggle.checked, false)
            mouseClick(toggle)
            compare(testSettings.compressSavedStates, true)
            mouseClick(toggle)
            compare(testSettings.compressSavedStates, false)
            testSettings.compressSavedStates = true // and it still follows the setting
            compare(toggle.checked, true)
        }

        // The dialog hands over a percent-encoded URL, and its text keeps some escapes
        // ("%25", "%23", "%5B"): the setting must be the folder's real path.
        function test_modelsFolderDialogStoresTheLocalPath() {
            const dialog = findChild(panel, "modelsFolderDialog")
            verify(dialog !== null)
            dialog.parentWindow = root.Window.window // under Qt Quick Test it finds none itself
            dialog.open()
            tryVerify(() => dialog.visible)
            dialog.selectedFolder = "file:///tmp/My%20Models/Mod%C3%A8les%20%E6%97%A5%E6%9C%AC%20100%25%20%231%20%5BQ8%5D"
            dialog.accept()
            compare(testSettings.modelsFolder, "/tmp/My Models/Modèles 日本 100% #1 [Q8]")
        }

        function test_systemPromptTyping() {
            testSettings.systemPrompt = ""
            const field = findChild(panel, "systemPromptField")
            field.forceActiveFocus()
            keyClick("H")
            keyClick("i")
            compare(testSettings.systemPrompt, "Hi")
        }
    }
}
