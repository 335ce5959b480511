import QtQuick
import QtTest
import Hearth

// The settings panel shows the AppSettings values and writes the user's changes
// back at once (testSettings is a real AppSettings on a temp file; the devices come from a real
// backend's ModelController, testModels, over its own settings, testModelSettings).
Item {
    id: root
    width: 1000
    height: 4000 // the whole page, Appearance included

    SettingsPanel {
        id: panel
        anchors.fill: parent
        settings: testSettings
    }

    // The app binds the theme's font size to the setting (Main.qml): so does this test.
    Binding { target: Theme; property: "fontSize"; value: testSettings.fontSize }

    // A window too short for the page: the page scrolls.
    SettingsPanel {
        id: shortPanel
        width: 1000
        height: 420
        settings: testSettings
    }

    // Beside the window, driven from the keyboard: the compute device and the layers on the GPU,
    // with the devices this machine has (lavapipe, at least, where Mesa is installed).
    SettingsPanel {
        id: devicePanel
        x: root.width
        width: 1000
        height: 4000
        settings: testModelSettings
        models: testModels
    }

    TestCase {
        name: "SettingsPanel"
        when: windowShown

        function slider(name) { return findChild(findChild(panel, name), "slider") }

        // A test that stops early leaves no font-size correction running to move the page
        // under the next one.
        function cleanup() { findChild(shortPanel, "fontSizeKeepInPlace").stop() }

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
            testSettings.conversationMemoryMB = 512
            const spin = findChild(panel, "conversationMemorySpin")
            compare(spin.value, 512)
            spin.forceActiveFocus()
            keyClick(Qt.Key_Up)
            compare(testSettings.conversationMemoryMB, 762)
            testSettings.conversationMemoryMB = 64
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

        // Speculative decoding: the drafter's choice is written back; prompt lookup enables the
        // tokens looked up, a draft model its file (the one set even when the folder lacks it),
        // and either the most tokens drafted.
        function test_speculationSetting() {
            testSettings.speculation = "off"
            const combo = findChild(panel, "speculationCombo")
            compare(combo.currentText, "Off")
            verify(!findChild(panel, "draftMaxSpin").enabled)
            combo.forceActiveFocus()
            keyClick(Qt.Key_Down)
            compare(testSettings.speculation, "lookup")
            verify(findChild(panel, "lookupNgramSpin").enabled)
            verify(findChild(panel, "draftMaxSpin").enabled)
            verify(!findChild(panel, "draftModelCombo").enabled)
            testSettings.draftMax = 5
            compare(findChild(panel, "draftMaxSpin").value, 5)
            testSettings.draftModelPath = "/models/tiny-draft-Q8_0.gguf"
            testSettings.speculation = "draft"
            compare(combo.currentText, "Draft model")
            const files = findChild(panel, "draftModelCombo")
            verify(files.enabled)
            verify(!findChild(panel, "lookupNgramSpin").enabled)
            compare(files.currentText, "tiny-draft-Q8_0.gguf")
            testSettings.speculation = "off"
            testSettings.draftModelPath = ""
            compare(files.displayText, "Choose a file…")
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
            tryVerify(() => dialog.opened)
            dialog.selectedFolder = "file:///tmp/My%20Models/Mod%C3%A8les%20%E6%97%A5%E6%9C%AC%20100%25%20%231%20%5BQ8%5D"
            dialog.accept()
            compare(testSettings.modelsFolder, "/tmp/My Models/Modèles 日本 100% #1 [Q8]")
        }

        // The mouse wheel over a multi-line field scrolls the page (the chat template's own scroll
        // view once took it, and the page stood still).
        function test_wheelOverMultiLineFieldsScrollsThePage_data() {
            return [{ tag: "system prompt", field: "systemPromptField" }, { tag: "chat template", field: "chatTemplateField" }]
        }
        function test_wheelOverMultiLineFieldsScrollsThePage(data) {
            testSettings.systemPrompt = "Line\n".repeat(8)
            testSettings.chatTemplate = "{{ line }}\n".repeat(12)
            const flick = findChild(shortPanel, "settingsScroll").contentItem
            const field = findChild(shortPanel, data.field)
            // The page laid out with the new texts, and still (an earlier test's scroll may still
            // be moving it on a slow build), before the field is measured: the layouts inside
            // the page polish on their own, so the field's place must hold over two looks.
            flick.cancelFlick()
            let fieldTop = NaN
            tryVerify(() => {
                const top = field.mapToItem(flick.contentItem, 0, 0).y
                const settled = top === fieldTop && !flick.moving
                fieldTop = top
                return settled
            }, 5000, "the page is still moving or laying out")
            // The field near the top of the view, with page left below it to scroll to.
            flick.contentY = Math.max(0, fieldTop - 40)
            waitForRendering(shortPanel)
            const before = flick.contentY
            const point = field.mapToItem(shortPanel, field.width / 2, 20)
            verify(point.y > 0 && point.y < shortPanel.height,
                   "the field is in view: at " + point.y + " in " + shortPanel.height + ", the page at " + flick.contentY
                   + " of " + flick.contentHeight)
            mouseWheel(shortPanel, point.x, point.y, 0, -240)
            tryVerify(() => flick.contentY > before + 20, 10000, "the page did not scroll: " + flick.contentY)
            testSettings.systemPrompt = ""
            testSettings.chatTemplate = ""
        }

        // The font-size + stays under the pointer: the page above it grows with the font, and the
        // button once moved away after each click.
        function test_fontSizePlusStaysUnderThePointer() {
            testSettings.fontSize = 11
            const spin = findChild(shortPanel, "fontSizeSpin")
            const flick = findChild(shortPanel, "settingsScroll").contentItem
            flick.contentY = flick.contentHeight - flick.height // the Appearance section, at the bottom
            waitForRendering(shortPanel)
            const plus = spin.up.indicator
            const start = plus.mapToItem(shortPanel, plus.width / 2, plus.height / 2)
            for (let i = 1; i <= 3; ++i) {
                mouseClick(shortPanel, start.x, start.y)
                compare(testSettings.fontSize, 11 + i)
                const now = () => plus.mapToItem(shortPanel, plus.width / 2, plus.height / 2)
                tryVerify(() => Math.abs(now().y - start.y) <= 1.5 && Math.abs(now().x - start.x) <= 1.5, 10000,
                          "the + moved from %1,%2 to %3,%4".arg(start.x).arg(start.y).arg(now().x).arg(now().y))
            }
            testSettings.fontSize = 11
            // The page's correction runs for a few ticks after a click, and one left running moved
            // the page back under a later test (an ASan run: the wheel test's field out of view).
            const correction = findChild(shortPanel, "fontSizeKeepInPlace")
            verify(correction !== null)
            tryVerify(() => !correction.running, 10000, "the page's correction is still running")
        }

        // The user's own scroll wins: the + keeps its place only until the page is moved by hand
        // (the correction once pulled a wheel's scroll back for its remaining ticks).
        function test_scrollingAfterFontSizePlusIsNotUndone() {
            testSettings.fontSize = 11
            const spin = findChild(shortPanel, "fontSizeSpin")
            const flick = findChild(shortPanel, "settingsScroll").contentItem
            const correction = findChild(shortPanel, "fontSizeKeepInPlace")
            const bottom = flick.contentHeight - flick.height
            if (flick.contentY !== bottom) { // an unchanged page draws no frame to wait for
                flick.contentY = bottom
                waitForRendering(shortPanel)
            }
            const plus = spin.up.indicator
            const at = plus.mapToItem(shortPanel, plus.width / 2, plus.height / 2)
            mouseClick(shortPanel, at.x, at.y)
            compare(testSettings.fontSize, 12)
            verify(correction.running, "a click starts the correction")
            const clicked = flick.contentY
            mouseWheel(shortPanel, at.x, at.y, 0, 240) // up the page, at once
            verify(!correction.running, "the correction goes on after the wheel")
            tryVerify(() => !flick.moving, 10000, "the page is still moving")
            // The page went up as the wheel asked, and stays there.
            verify(flick.contentY < clicked - 20, "the page at " + flick.contentY + ", was at " + clicked)
            testSettings.fontSize = 11
            tryVerify(() => !correction.running, 10000, "the page's correction is still running")
        }

        function listedDevices() {
            const devices = testModels.computeDevices
            devices.refresh()
            tryVerify(() => !devices.listing, 20000, "the devices are still being listed")
            return devices
        }

        // CPU first, then each GPU by name with its memory; choosing one sets the setting, and a
        // device the setting names but the machine lacks shows as not found.
        function test_computeDeviceCombo() {
            testModelSettings.computeDevice = "cpu"
            const devices = listedDevices()
            const combo = findChild(devicePanel, "computeDeviceCombo")
            compare(combo.currentText, "CPU")
            compare(combo.count, devices.keys.length)
            compare(findChild(panel, "computeDeviceCombo").count, 1, "without the models: the CPU alone")
            if (devices.keys.length > 1) {
                verify(/ · \d/.test(devices.labels[1]), devices.labels[1]) // "llvmpipe (…) · 31.3 GB"
                combo.forceActiveFocus()
                keyClick(Qt.Key_Down)
                compare(testModelSettings.computeDevice, devices.keys[1])
                compare(combo.currentText, devices.labels[1])
            }
            testModelSettings.computeDevice = "vulkan:9"
            compare(combo.currentText, "vulkan:9 (not found)")
            testModelSettings.computeDevice = "cpu"
            compare(combo.currentText, "CPU")
            verify(!devices.labels.some(label => label.indexOf("not found") >= 0), "the missing one is gone again")
        }

        // Automatic by default; off, the slider chooses how many layers; for the CPU the row is off.
        function test_gpuLayers() {
            testModelSettings.computeDevice = "cpu"
            testModelSettings.gpuLayers = -1
            const automatic = findChild(devicePanel, "gpuLayersAutomaticSwitch")
            const layers = findChild(devicePanel, "gpuLayersSetting")
            verify(!automatic.enabled, "no layers to choose for the CPU")
            testModelSettings.computeDevice = "vulkan:0"
            verify(automatic.enabled)
            verify(automatic.checked)
            verify(!layers.visible)
            automatic.forceActiveFocus()
            keyClick(Qt.Key_Space)
            compare(testModelSettings.gpuLayers, 0) // every layer of the loaded model: none is loaded
            verify(layers.visible)
            testModelSettings.gpuLayers = 3
            compare(findChild(layers, "slider").value, 3)
            verify(!automatic.checked)
            keyClick(Qt.Key_Space)
            compare(testModelSettings.gpuLayers, -1)
            verify(!layers.visible)
            testModelSettings.computeDevice = "cpu"
        }

        // The server's allowed web pages and host names: shown, and written when editing ends.
        function test_serverAllowedOriginsAndHosts() {
            testSettings.serverAllowedOrigins = "http://localhost:3000"
            const origins = findChild(panel, "serverAllowedOriginsField")
            compare(origins.text, "http://localhost:3000")
            origins.forceActiveFocus()
            origins.selectAll()
            keyClick("*")
            keyClick(Qt.Key_Return)
            compare(testSettings.serverAllowedOrigins, "*")
            testSettings.serverAllowedHosts = "hearth.lan"
            compare(findChild(panel, "serverAllowedHostsField").text, "hearth.lan")
            testSettings.serverAllowedOrigins = ""
            testSettings.serverAllowedHosts = ""
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
