import QtQuick
import QtTest
import Hearth

// The model settings dialog and the chat header's prompt chooser over a real PresetController
// (testPresets, a real backend's, on a temp database) for the stories model's file: what the user
// checks and changes is saved as the model's own, the rest stays global; a chat template that does
// not parse is refused with the parser's line and column, the dialog open with what was typed;
// "Use global settings" forgets the preset; the chooser sets the new chat's prompt.
Item {
    id: root
    width: 900
    height: 1400

    ModelPresetDialog {
        id: dialog
        presets: testPresets
        height: 1300 // every row in view, for the clicks
    }

    PromptPresetChooser {
        id: chooser
        x: 20
        y: 20
        presets: testPresets
        conversationId: ""
    }

    TestCase {
        name: "ModelPresetDialog"
        when: windowShown

        function item(name) { return findChild(dialog.contentItem, name) }
        // Types `text` into the focused item, a key at a time.
        function typeText(text) {
            for (const c of text) keyClick(c)
        }

        function init() {
            tryVerify(() => testPresets.ready, 10000)
        }
        function cleanup() {
            dialog.close()
            tryVerify(() => !dialog.visible)
            testPresets.resetModelPreset(testPresetModelPath)
            testPresets.choosePrompt("", "")
        }

        function openDialog() {
            dialog.openFor(testPresetModelPath, "stories260K")
            tryVerify(() => dialog.opened)
        }

        function test_savesTheValuesChanged() {
            openDialog()
            const globals = testPresets.modelPreset(testPresetModelPath).globals
            verify(!item("topKOverride").checked)
            verify(!item("temperatureOverride").checked)
            // Changed by hand: the value becomes the model's own.
            const topK = item("presetTopK")
            topK.forceActiveFocus()
            keyClick(Qt.Key_Up)
            verify(item("topKOverride").checked)
            const temperature = findChild(item("presetTemperature"), "slider")
            temperature.forceActiveFocus()
            keyClick(Qt.Key_Right)
            verify(item("temperatureOverride").checked)
            // Checked alone, a value is the global one made the model's.
            mouseClick(item("contextLengthOverride"))
            verify(item("contextLengthOverride").checked)
            mouseClick(item("presetSave"))
            tryVerify(() => !dialog.visible)

            verify(testPresets.hasModelPreset(testPresetModelPath))
            const overrides = testPresets.modelPreset(testPresetModelPath).overrides
            compare(Object.keys(overrides).sort(), ["contextLength", "temperature", "topK"])
            compare(overrides.topK, globals.topK + 1)
            fuzzyCompare(overrides.temperature, globals.temperature + 0.05, 0.0001)
            compare(overrides.contextLength, globals.contextLength)

            // Opened again, it shows them; unchecking one gives it back to the global settings.
            openDialog()
            verify(item("topKOverride").checked)
            compare(item("presetTopK").value, globals.topK + 1)
            mouseClick(item("topKOverride"))
            compare(item("presetTopK").value, globals.topK)
            mouseClick(item("presetSave"))
            tryVerify(() => !dialog.visible)
            compare(Object.keys(testPresets.modelPreset(testPresetModelPath).overrides).sort(),
                    ["contextLength", "temperature"])
        }

        function test_badTemplateIsRefusedWithTheParsersMessage() {
            openDialog()
            const template = item("presetChatTemplate")
            template.forceActiveFocus()
            typeText("{% if %}")
            verify(item("chatTemplateOverride").checked)
            mouseClick(item("presetSave"))
            const error = item("presetError")
            tryVerify(() => error.visible)
            verify(error.text.indexOf("chat template:1:") >= 0, error.text)
            verify(dialog.opened)
            compare(template.text, "{% if %}") // what was typed stays
            verify(!testPresets.hasModelPreset(testPresetModelPath))

            template.forceActiveFocus() // Save took it
            template.selectAll()
            typeText("{{ messages[0].content }}")
            mouseClick(item("presetSave"))
            tryVerify(() => !dialog.visible)
            compare(testPresets.modelPreset(testPresetModelPath).overrides.chatTemplate, "{{ messages[0].content }}")
        }

        function test_useGlobalSettingsForgetsThePreset() {
            compare(testPresets.saveModelPreset(testPresetModelPath, { minP: 0.2 }), "")
            openDialog()
            verify(item("minPOverride").checked)
            verify(item("presetUseGlobal").enabled)
            mouseClick(item("presetUseGlobal"))
            verify(!testPresets.hasModelPreset(testPresetModelPath))
            verify(!item("minPOverride").checked)
            verify(!item("presetUseGlobal").enabled)
        }

        function test_chooserSetsTheNewChatsPrompt() {
            compare(chooser.text, "Default prompt")
            mouseClick(chooser)
            const menu = findChild(chooser, "promptPresetMenu")
            tryVerify(() => menu.opened)
            const second = findChild(menu.contentItem, "promptPreset_1")
            verify(second !== null)
            waitForItemPolished(menu.contentItem)
            compare(second.text, testPresets.prompts.nameOf(testPresets.prompts.idAt(1)))
            mouseClick(second)
            tryVerify(() => !menu.visible)
            const id = testPresets.prompts.idAt(1)
            compare(testPresets.presetIdFor(""), id)
            compare(chooser.text, testPresets.prompts.nameOf(id))
            // Renamed in the library, the chooser shows the new name.
            verify(testPresets.renamePrompt(id, "Renamed"))
            compare(chooser.text, "Renamed")
        }

        // The library from the chooser's menu: New, typed into, Save, Delete.
        function test_libraryCreatesEditsAndDeletes() {
            const count = testPresets.prompts.count
            mouseClick(chooser)
            const menu = findChild(chooser, "promptPresetMenu")
            tryVerify(() => menu.opened)
            mouseClick(findChild(menu.contentItem, "managePrompts"))
            const library = findChild(chooser, "promptLibraryDialog")
            tryVerify(() => library.opened)
            const lib = name => findChild(library.contentItem, name)
            mouseClick(lib("promptNew"))
            compare(testPresets.prompts.count, count + 1)
            const id = library.selectedId
            compare(testPresets.prompts.idAt(count), id)
            // The new name is selected: typing replaces it.
            typeText("Haiku")
            const text = lib("promptTextField")
            text.forceActiveFocus()
            typeText("Answer in a haiku.")
            mouseClick(lib("promptSave"))
            compare(testPresets.prompts.nameOf(id), "Haiku")
            compare(testPresets.prompts.promptOf(id), "Answer in a haiku.")
            mouseClick(lib("promptDelete"))
            compare(testPresets.prompts.count, count)
            compare(testPresets.prompts.rowOf(id), -1)
            mouseClick(lib("promptClose"))
            tryVerify(() => !library.visible)
        }
    }
}
