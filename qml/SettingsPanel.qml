import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Every preference, applied as it changes (AppSettings stores it).
Item {
    id: panel
    property var settings
    // The ModelController: the devices to choose from, and the loaded model's layers (null: the
    // CPU alone is offered).
    property var models: null
    // The ChatController: its export and import of conversations (null: not offered).
    property var chat: null
    // The PresetController: which values the loaded model's own settings replace (null: none).
    property var presets: null
    readonly property var presetOverrides: presets ? presets.loadedOverrides : []
    readonly property var computeDevices: models ? models.computeDevices : null
    readonly property int layerCount: models ? models.layerCount : 0
    // Scrolls to the context length and gives it the focus (the chat's context notice leads here).
    function showContextLength() {
        const combo = contextCombo
        const flick = scroll.contentItem
        const y = combo.mapToItem(flick.contentItem, 0, 0).y
        flick.contentY = Math.max(0, Math.min(y - 80, flick.contentHeight - flick.height))
        combo.forceActiveFocus(Qt.OtherFocusReason)
    }

    // The platform's dialog where its theme has one, else Hearth's own (FileBrowserPopup).
    ChooserDialog {
        id: folderDialog
        chooseFolder: true
        objectName: "modelsFolderDialog"
        title: qsTr("Choose the models folder")
        startFolderPath: panel.settings ? panel.settings.modelsFolder : ""
        // The settings decode the URL: its text keeps percent-encoding ("My%20Models").
        onAccepted: panel.settings.setModelsFolderUrl(selectedFolder)
    }

    ScrollView {
        id: scroll
        objectName: "settingsScroll"
        anchors.fill: parent
        contentWidth: availableWidth
        clip: true
        ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the settings") }
        ScrollBar.horizontal.policy: ScrollBar.AlwaysOff // the content takes the view's width

        ColumnLayout {
            width: Math.min(scroll.availableWidth - 64, 760)
            x: (scroll.availableWidth - width) / 2
            spacing: 18

            Item { height: 12 }
            Label { text: qsTr("Settings"); font.pointSize: Theme.huge; font.weight: Font.Bold; color: Theme.text }
            Label {
                text: qsTr("Changes apply at once and are saved for the next start.")
                color: Theme.textMuted
                font.pointSize: Theme.small
            }
            // The loaded model's own settings replace some of these (the Models page edits them).
            Label {
                objectName: "presetOverridesNotice"
                visible: panel.presetOverrides.length > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: Theme.accent
                font.pointSize: Theme.small
                readonly property var names: ({
                    systemPrompt: qsTr("system prompt"), temperature: qsTr("temperature"), topK: qsTr("top-k"),
                    topP: qsTr("top-p"), minP: qsTr("min-p"), repeatPenalty: qsTr("repetition penalty"),
                    maxReplyTokens: qsTr("maximum reply length"), contextLength: qsTr("context length"),
                    chatTemplate: qsTr("chat template")
                })
                text: visible ? qsTr("%1 has settings of its own, used instead of these while it is loaded: %2.")
                                    .arg(panel.models ? panel.models.modelName : "")
                                    .arg(panel.presetOverrides.map(field => names[field] || field).join(", "))
                              : ""
            }

            Section {
                title: qsTr("Conversation")
                SettingRow {
                    title: qsTr("System prompt")
                    hint: qsTr("Sent at the start of every conversation.")
                }
                Rectangle {
                    Layout.fillWidth: true
                    implicitHeight: Math.max(90, systemPrompt.implicitHeight + 16)
                    radius: Theme.smallRadius
                    color: Theme.window
                    border.color: systemPrompt.activeFocus ? Theme.accent : Theme.border
                    TextArea {
                        id: systemPrompt
                        objectName: "systemPromptField"
                        anchors.fill: parent
                        anchors.margins: 4
                        wrapMode: TextEdit.Wrap
                        text: panel.settings.systemPrompt
                        Accessible.name: qsTr("System prompt")
                        // Tab moves on to the next control, as everywhere in the window.
                        Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                        Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                        placeholderText: qsTr("You are a helpful assistant.")
                        placeholderTextColor: Theme.textFaint
                        color: Theme.text
                        background: null
                        onTextChanged: if (text !== panel.settings.systemPrompt) panel.settings.systemPrompt = text
                    }
                }
                SettingRow {
                    title: qsTr("Chat template")
                    hint: qsTr("A Jinja template for the prompt. Empty: the model's own (ChatML if it has none).")
                    PillButton {
                        objectName: "clearChatTemplateButton"
                        text: qsTr("Use the model's")
                        enabled: panel.settings.chatTemplate.length > 0
                        onClicked: panel.settings.chatTemplate = ""
                    }
                }
                Rectangle {
                    Layout.fillWidth: true
                    // It grows with its text, as the system prompt does: a scroll view of its own
                    // took the mouse wheel from the page.
                    implicitHeight: Math.max(90, chatTemplate.implicitHeight + 16)
                    radius: Theme.smallRadius
                    color: Theme.window
                    border.color: chatTemplate.activeFocus ? Theme.accent : Theme.border
                    TextArea {
                        id: chatTemplate
                        objectName: "chatTemplateField"
                        anchors.fill: parent
                        anchors.margins: 4
                        wrapMode: TextEdit.Wrap
                        text: panel.settings.chatTemplate
                        Accessible.name: qsTr("Chat template")
                        // Tab moves on to the next control, as everywhere in the window.
                        Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                        Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                        placeholderText: qsTr("{% for message in messages %}…{% endfor %}")
                        placeholderTextColor: Theme.textFaint
                        font.family: Theme.monoFamily
                        color: Theme.text
                        background: null
                        onTextChanged: if (text !== panel.settings.chatTemplate) panel.settings.chatTemplate = text
                    }
                }
                SettingRow {
                    title: qsTr("Maximum reply length")
                    hint: qsTr("Tokens per reply. Auto: as many as the model's context has room for, so that a reply never pushes the conversation it answers out of view.")
                    SpinBox {
                        objectName: "maxReplySpin"
                        from: 0; to: 32768; stepSize: 64; editable: true
                        Accessible.name: qsTr("Maximum reply length")
                        textFromValue: function (value, locale) { return value === 0 ? qsTr("Auto") : Number(value).toLocaleString(locale, "f", 0) }
                        valueFromText: function (text, locale) { return text === qsTr("Auto") ? 0 : Number.fromLocaleString(locale, text) }
                        value: panel.settings.maxReplyTokens
                        onValueModified: { panel.settings.maxReplyTokens = value; value = Qt.binding(() => panel.settings.maxReplyTokens) }
                    }
                }
            }

            Section {
                title: qsTr("Sampling")
                trailing: PillButton { text: qsTr("Reset"); Accessible.name: qsTr("Reset sampling"); onClicked: panel.settings.resetSampling() }
                SettingRow {
                    title: qsTr("Temperature")
                    hint: qsTr("Higher is more varied; 0 always picks the likeliest token.")
                    SliderSetting {
                        objectName: "temperatureSetting"
                        from: 0; to: 2; stepSize: 0.05
                        value: panel.settings.temperature
                        onEdited: function (v) { panel.settings.temperature = v }
                    }
                }
                SettingRow {
                    title: qsTr("Top-k")
                    hint: qsTr("Only the k likeliest tokens are considered (0: off).")
                    SpinBox {
                        objectName: "topKSpin"
                        from: 0; to: 1000; editable: true
                        value: panel.settings.topK
                        onValueModified: { panel.settings.topK = value; value = Qt.binding(() => panel.settings.topK) }
                    }
                }
                SettingRow {
                    title: qsTr("Top-p")
                    hint: qsTr("Nucleus sampling (1: off).")
                    SliderSetting {
                        objectName: "topPSetting"
                        from: 0; to: 1; stepSize: 0.01
                        value: panel.settings.topP
                        onEdited: function (v) { panel.settings.topP = v }
                    }
                }
                SettingRow {
                    title: qsTr("Min-p")
                    hint: qsTr("Drops tokens less likely than this share of the likeliest (0: off).")
                    SliderSetting {
                        objectName: "minPSetting"
                        from: 0; to: 1; stepSize: 0.01
                        value: panel.settings.minP
                        onEdited: function (v) { panel.settings.minP = v }
                    }
                }
                SettingRow {
                    title: qsTr("Repetition penalty")
                    hint: qsTr("Discourages repeating recent tokens (1: off).")
                    SliderSetting {
                        objectName: "repeatPenaltySetting"
                        from: 1; to: 2; stepSize: 0.01
                        value: panel.settings.repeatPenalty
                        onEdited: function (v) { panel.settings.repeatPenalty = v }
                    }
                }
                SettingRow {
                    title: qsTr("Seed")
                    hint: qsTr("The same seed and prompt give the same reply; -1 picks a new one each time.")
                    SpinBox {
                        objectName: "seedSpin"
                        from: -1; to: 2147483647; editable: true
                        value: panel.settings.seed
                        onValueModified: { panel.settings.seed = value; value = Qt.binding(() => panel.settings.seed) }
                    }
                }
            }

            Section {
                title: qsTr("Engine")
                SettingRow {
                    title: qsTr("Context length")
                    hint: qsTr("Tokens each conversation keeps in view (capped at the model's own).")
                    ThemedComboBox {
                        id: contextCombo
                        objectName: "contextCombo"
                        width: 160
                        model: [512, 1024, 2048, 4096, 8192, 16384, 32768]
                        currentIndex: Math.max(0, model.indexOf(panel.settings.contextLength))
                        onActivated: panel.settings.contextLength = model[currentIndex]
                    }
                }
                SettingRow {
                    title: qsTr("Threads")
                    hint: qsTr("Kernel threads for the forward pass (0: one per core, as the engine counts them).")
                    SpinBox {
                        objectName: "threadsSpin"
                        from: 0; to: 256; editable: true
                        value: panel.settings.threads
                        onValueModified: { panel.settings.threads = value; value = Qt.binding(() => panel.settings.threads) }
                    }
                }
                SettingRow {
                    id: speedRow
                    readonly property var speed: panel.models ? panel.models.speed : null
                    title: qsTr("This computer's speed")
                    hint: speed && speed.measuring ? qsTr("Measuring… (a few seconds)")
                        : speed && speed.summary.length > 0 ? qsTr("%1. The model cards predict their speed from it.").arg(speed.summary)
                        : qsTr("Not measured yet.")
                    PillButton {
                        objectName: "remeasureButton"
                        text: qsTr("Measure again")
                        enabled: speedRow.speed !== null && !speedRow.speed.measuring
                        onClicked: speedRow.speed.remeasure()
                    }
                }
                SettingRow {
                    title: qsTr("Compute device")
                    hint: qsTr("Where the model runs: the CPU, or a GPU (through Vulkan) with its memory. Switching keeps your conversations and their caches.")
                    ThemedComboBox {
                        objectName: "computeDeviceCombo"
                        width: 260
                        model: panel.computeDevices ? panel.computeDevices.labels : [qsTr("CPU")]
                        currentIndex: panel.computeDevices ? Math.max(0, panel.computeDevices.keys.indexOf(panel.settings.computeDevice)) : 0
                        onActivated: if (panel.computeDevices) panel.settings.computeDevice = panel.computeDevices.keys[currentIndex]
                        Accessible.name: qsTr("Compute device")
                    }
                }
                SettingRow {
                    readonly property bool automatic: panel.settings.gpuLayers < 0
                    title: qsTr("Layers on GPU")
                    hint: automatic ? qsTr("As many of the model's layers as fit in the GPU's memory with their KV cache; the rest run on the CPU.")
                                    : qsTr("The model's first layers run on the GPU, the rest on the CPU (0: all on the CPU).")
                    enabled: panel.settings.computeDevice !== "cpu"
                    ColumnLayout {
                        width: parent.width
                        spacing: 4
                        ThemedSwitch {
                            objectName: "gpuLayersAutomaticSwitch"
                            text: qsTr("Automatic")
                            checked: panel.settings.gpuLayers < 0
                            // Off: every layer of the loaded model, for the slider to take from there.
                            onToggled: { panel.settings.gpuLayers = checked ? -1 : panel.layerCount; checked = Qt.binding(() => panel.settings.gpuLayers < 0) }
                        }
                        SliderSetting {
                            objectName: "gpuLayersSetting"
                            Accessible.name: qsTr("Layers on GPU")
                            visible: panel.settings.gpuLayers >= 0
                            Layout.fillWidth: true
                            from: 0
                            to: Math.max(1, panel.layerCount, panel.settings.gpuLayers)
                            stepSize: 1
                            decimals: 0
                            value: Math.max(0, panel.settings.gpuLayers)
                            onEdited: function (v) { panel.settings.gpuLayers = Math.round(v) }
                        }
                    }
                }
                Label {
                    objectName: "computeDeviceStatus"
                    visible: panel.models !== null && panel.models.loaded
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pointSize: Theme.small
                    color: Theme.textMuted
                    text: !visible ? ""
                        : panel.models.gpuLayers > 0 ? qsTr("%1 runs %2 of its %3 layers on %4.").arg(panel.models.modelName).arg(panel.models.gpuLayers).arg(panel.models.layerCount).arg(panel.models.gpuName)
                        : qsTr("%1 runs on the CPU.").arg(panel.models.modelName)
                }
                SettingRow {
                    title: qsTr("KV cache keys")
                    hint: qsTr("How the cache stores attention keys: f16 (exact), q8_0 (about half the memory) or q4_0 (about a quarter, less accurate). Models whose heads are not a multiple of 32 values keep f16.")
                    ThemedComboBox {
                        objectName: "keyCacheTypeCombo"
                        width: 160
                        model: panel.settings.cacheTypes
                        currentIndex: Math.max(0, model.indexOf(panel.settings.keyCacheType))
                        onActivated: panel.settings.keyCacheType = model[currentIndex]
                        Accessible.name: qsTr("KV cache keys")
                    }
                }
                SettingRow {
                    title: qsTr("KV cache values")
                    hint: qsTr("How the cache stores attention values, as for keys. Changing either starts conversations' caches afresh (they are saved first).")
                    ThemedComboBox {
                        objectName: "valueCacheTypeCombo"
                        width: 160
                        model: panel.settings.cacheTypes
                        currentIndex: Math.max(0, model.indexOf(panel.settings.valueCacheType))
                        onActivated: panel.settings.valueCacheType = model[currentIndex]
                        Accessible.name: qsTr("KV cache values")
                    }
                }
                SpeculationSetting { settings: panel.settings; models: panel.models }
                SettingRow {
                    title: qsTr("Conversation memory")
                    hint: qsTr("MB of KV cache kept for recent conversations; older ones are saved to disk and resume from there.")
                    SpinBox {
                        objectName: "conversationMemorySpin"
                        from: 1; to: 1000000; stepSize: 250; editable: true
                        value: panel.settings.conversationMemoryMB
                        onValueModified: { panel.settings.conversationMemoryMB = value; value = Qt.binding(() => panel.settings.conversationMemoryMB) }
                    }
                }
                SettingRow {
                    title: qsTr("Compress saved conversation state")
                    hint: qsTr("Conversations saved to disk take about half the space (Q8_0 instead of F16); a resumed conversation's cache is slightly rounded.")
                    ThemedSwitch {
                        objectName: "compressSavedStatesSwitch"
                        checked: panel.settings.compressSavedStates
                        onToggled: { panel.settings.compressSavedStates = checked; checked = Qt.binding(() => panel.settings.compressSavedStates) }
                    }
                }
                SettingRow {
                    title: qsTr("Models folder")
                    hint: panel.settings.modelsFolder
                    PillButton { iconPath: Icons.folder; text: qsTr("Change…"); onClicked: folderDialog.open() }
                }
            }

            Section {
                title: qsTr("Local API server")
                SettingRow {
                    title: qsTr("Serve the loaded model")
                    hint: qsTr("Other programs on this computer can use the model through an OpenAI-compatible API (chat and completions). Their requests take turns with your chats.")
                    ThemedSwitch {
                        objectName: "serverEnabledSwitch"
                        checked: panel.settings.serverEnabled
                        onToggled: { panel.settings.serverEnabled = checked; checked = Qt.binding(() => panel.settings.serverEnabled) }
                    }
                }
                SettingRow {
                    title: qsTr("Port")
                    hint: qsTr("On 127.0.0.1 only: other computers cannot reach it.")
                    SpinBox {
                        objectName: "serverPortSpin"
                        from: 0; to: 65535; editable: true
                        value: panel.settings.serverPort
                        textFromValue: function (value) { return String(value) } // no thousands separator
                        onValueModified: { panel.settings.serverPort = value; value = Qt.binding(() => panel.settings.serverPort) }
                    }
                }
                SettingRow {
                    title: qsTr("API key")
                    hint: qsTr("Optional: clients must then send \"Authorization: Bearer KEY\". Empty: any program on this computer may use it.")
                    TextField {
                        objectName: "serverApiKeyField"
                        width: 260
                        text: panel.settings.serverApiKey
                        placeholderText: qsTr("None")
                        echoMode: activeFocus ? TextInput.Normal : TextInput.Password
                        onEditingFinished: if (text !== panel.settings.serverApiKey) panel.settings.serverApiKey = text
                    }
                }
                SettingRow {
                    title: qsTr("Allowed web pages")
                    hint: qsTr("Any website open in your browser could otherwise send requests to the server, so requests from web pages are refused unless their origin is listed here, e.g. http://localhost:3000 (port * for any port). Programs that are not browsers are not affected.")
                    TextField {
                        objectName: "serverAllowedOriginsField"
                        width: 260
                        text: panel.settings.serverAllowedOrigins
                        placeholderText: qsTr("None")
                        onEditingFinished: if (text !== panel.settings.serverAllowedOrigins) panel.settings.serverAllowedOrigins = text
                    }
                }
                SettingRow {
                    title: qsTr("Other host names")
                    hint: qsTr("Clients must address the server as localhost, 127.0.0.1 or [::1]; list other names that lead to this computer here. This stops websites from reaching the server under a name of their own (DNS rebinding).")
                    TextField {
                        objectName: "serverAllowedHostsField"
                        width: 260
                        text: panel.settings.serverAllowedHosts
                        placeholderText: qsTr("None")
                        onEditingFinished: if (text !== panel.settings.serverAllowedHosts) panel.settings.serverAllowedHosts = text
                    }
                }
                Label {
                    objectName: "serverStatusLabel"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pointSize: Theme.small
                    color: panel.settings.serverError.length > 0 ? Theme.danger
                         : panel.settings.serverListening ? Theme.success : Theme.textMuted
                    text: panel.settings.serverError.length > 0 ? panel.settings.serverError
                        : panel.settings.serverListening ? qsTr("Listening on %1 — clients use %1/v1 as their base URL.").arg(panel.settings.serverUrl)
                        : qsTr("Off.")
                }
            }

            Section {
                objectName: "mcpSection"
                title: qsTr("Tools (MCP servers)")
                McpServersSetting {
                    settings: panel.settings
                    servers: panel.chat ? panel.chat.mcpServers : null
                }
            }

            Section {
                objectName: "conversationFilesSection"
                title: qsTr("Export and import")
                visible: panel.chat !== null
                ConversationFileRows { files: panel.chat ? panel.chat.files : null }
            }

            Section {
                title: qsTr("Appearance")
                SettingRow {
                    title: qsTr("Theme")
                    Row {
                        objectName: "themeChooser"
                        spacing: 0
                        Repeater {
                            model: [{ key: "system", label: qsTr("System") }, { key: "light", label: qsTr("Light") }, { key: "dark", label: qsTr("Dark") }]
                            delegate: AbstractButton {
                                id: choice
                                required property var modelData
                                required property int index
                                objectName: "theme_" + modelData.key
                                readonly property bool chosen: panel.settings.theme === modelData.key
                                implicitWidth: 82
                                implicitHeight: 34
                                hoverEnabled: true
                                focusPolicy: Qt.StrongFocus
                                Accessible.role: Accessible.RadioButton
                                Accessible.name: qsTr("%1 theme").arg(modelData.label)
                                onClicked: panel.settings.theme = modelData.key
                                background: Rectangle {
                                    radius: 8
                                    color: choice.chosen ? Theme.accent : (choice.hovered ? Theme.hover : Theme.window)
                                    border.color: choice.chosen ? Theme.accent : Theme.border
                                }
                                contentItem: Label {
                                    text: choice.modelData.label
                                    horizontalAlignment: Text.AlignHCenter
                                    verticalAlignment: Text.AlignVCenter
                                    color: choice.chosen ? Theme.textOnAccent : Theme.text
                                    font.pointSize: Theme.fontSize
                                }
                            }
                        }
                    }
                }
                SettingRow {
                    title: qsTr("Language")
                    hint: qsTr("The window's language; System follows the desktop's.")
                    ThemedComboBox {
                        objectName: "languageCombo"
                        width: 160
                        // Each language named in itself, as a person who cannot read the
                        // current one looks for it.
                        readonly property var keys: ["", "en", "de"]
                        model: [qsTr("System"), "English", "Deutsch"]
                        currentIndex: Math.max(0, keys.indexOf(panel.settings.language))
                        onActivated: panel.settings.language = keys[currentIndex]
                        Accessible.name: qsTr("Language")
                    }
                }
                SettingRow {
                    title: qsTr("Font size")
                    SpinBox {
                        id: fontSizeSpin
                        objectName: "fontSizeSpin"
                        from: 8; to: 24
                        value: panel.settings.fontSize
                        onValueModified: {
                            keepInPlace.start(mapToItem(scroll, 0, 0).y)
                            panel.settings.fontSize = value
                            value = Qt.binding(() => panel.settings.fontSize)
                        }
                        // Everything above grows or shrinks with the font: the page scrolls by as
                        // much, so that + and - stay under the pointer for the next click. The
                        // layouts settle over the next frames; each tick corrects what is left.
                        Timer {
                            id: keepInPlace
                            objectName: "fontSizeKeepInPlace"
                            property real viewY: 0
                            property int ticks: 0
                            function start(y) { viewY = y; ticks = 0; restart() }
                            interval: 16
                            repeat: true
                            onTriggered: {
                                const flick = scroll.contentItem
                                const drift = fontSizeSpin.mapToItem(scroll, 0, 0).y - viewY
                                flick.contentY = Math.max(0, flick.contentY + drift)
                                if (++ticks >= 6) stop()
                            }
                        }
                        // The user's own scroll (wheel, drag, flick) wins over what is left of it.
                        Connections {
                            target: scroll.contentItem
                            function onMovementStarted() { keepInPlace.stop() }
                        }
                    }
                }
            }
            Item { height: 24 }
        }
    }

    // Material draws a switch's handle with a layer effect, which the software renderer
    // (llvmpipe, offscreen) does not draw: drawn here.
    component ThemedSwitch: Switch {
        id: toggle
        indicator: Rectangle {
            implicitWidth: 44
            implicitHeight: 24
            x: toggle.leftPadding
            y: (toggle.height - height) / 2
            radius: height / 2
            color: toggle.checked ? Theme.accent : Theme.window
            border.color: toggle.checked ? Theme.accent : Theme.border
            Rectangle {
                width: 18
                height: 18
                radius: 9
                y: 3
                x: toggle.checked ? parent.width - width - 3 : 3
                color: toggle.checked ? Theme.textOnAccent : Theme.textMuted
                Behavior on x { NumberAnimation { duration: 120 } }
            }
        }
    }

    component Section: Rectangle {
        id: section
        property string title
        property Item trailing: null
        default property alias rows: rowsColumn.data
        Layout.fillWidth: true
        implicitHeight: sectionColumn.implicitHeight + 36
        radius: Theme.radius
        color: Theme.surface
        border.color: Theme.border
        ColumnLayout {
            id: sectionColumn
            anchors.fill: parent
            anchors.margins: 18
            spacing: 14
            RowLayout {
                Layout.fillWidth: true
                Label {
                    text: section.title
                    font.pointSize: Theme.large * 0.85
                    font.weight: Font.DemiBold
                    color: Theme.text
                    Layout.fillWidth: true
                }
                Item {
                    implicitWidth: section.trailing ? section.trailing.implicitWidth : 0
                    implicitHeight: section.trailing ? section.trailing.implicitHeight : 0
                    data: section.trailing ? [section.trailing] : []
                }
            }
            ColumnLayout {
                id: rowsColumn
                Layout.fillWidth: true
                spacing: 16
            }
        }
    }
}
