import QtQuick
import QtQuick.Controls
import QtQuick.Controls.Material
import QtQuick.Layouts
import Hearth.Chat
import Hearth.Metrics
import Hearth.Models
import Hearth.Settings

// The main window: conversations on the left, the chat (or the models or
// settings page) in the middle, the engine's live panels on the right, and a
// drop area over everything for model files and images.
ApplicationWindow {
    id: window
    required property ChatController chat
    required property ModelController models
    required property AppSettings settings
    required property MetricsController metrics
    property DownloadController downloads: null // the models page's catalog and downloads
    property HearthBackend backend: null // its notices about the conversation database

    // "chat", "models" or "settings"; opens on the models page when no model is loaded.
    property string page: "models"
    property bool metricsOpen: false
    // Below this width the metrics panel lies over the chat, from the right edge, instead of
    // taking its width: docked in a 900 px window it left the chat column ~250 px.
    readonly property bool metricsOverlay: width < 1200

    function navigate(target) {
        if (target === "metrics") {
            metricsOpen = !metricsOpen
            return
        }
        page = target
        if (target === "chat") chatView.focusComposer()
    }

    // The first window fits the screen it opens on (a 1280x800 screen cut off the sidebar's
    // last item at 820 px tall), down to the minimum size.
    width: Math.max(minimumWidth, Math.min(1280, Screen.desktopAvailableWidth))
    height: Math.max(minimumHeight, Math.min(820, Screen.desktopAvailableHeight))
    minimumWidth: 900
    minimumHeight: 560
    visible: true
    // Only what is open: the platform adds the application's display name ("… — Hearth").
    // With nothing open, the name alone: a screen reader reads this title, and an empty one as
    // an unnamed window.
    title: models.loaded ? models.modelName : Qt.application.displayName
    color: Theme.window
    font.pointSize: settings.fontSize

    SystemPalette { id: systemPalette }
    Binding {
        target: Theme
        property: "dark"
        value: window.settings.theme === "dark" || (window.settings.theme === "system" && systemPalette.window.hslLightness < 0.5)
    }
    Binding { target: Theme; property: "fontSize"; value: window.settings.fontSize }
    Material.theme: Theme.dark ? Material.Dark : Material.Light
    Material.accent: Theme.accent
    Material.background: Theme.surface

    // Keys go to the page that is shown. A click on a page's blank area or on a sidebar entry
    // leaves the focus where it was, and a hidden composer that kept it took what was typed on
    // Settings or Models, and sent it on Enter.
    onPageChanged: {
        window.leaveErrors()
        Qt.callLater(window.focusShownPage)
    }
    // The errors of the page or chat the user leaves (the conversation database's stays while
    // it applies).
    function leaveErrors() {
        window.chat.clearTransientError()
        if (window.modelErrorPage.length > 0 && window.modelErrorPage !== window.page) window.models.clearError()
    }
    function focusShownPage() {
        if (!window.isShown(window.activeFocusItem)) window.focusPage()
    }
    // Untyped: Qt 6.4's compiled binding read `visible` through a typed QQuickItem* and crashed.
    function isShown(item) { return item ? item.visible : false }
    // The keys to the page shown: the composer on the chat, else the page itself.
    function focusPage() {
        if (window.page === "chat") chatView.focusComposer()
        else (window.page === "models" ? modelPicker : settingsPanel).forceActiveFocus()
    }

    // The page a model error came up on (a drop, or the Models page): it is shown there only.
    property string modelErrorPage: ""
    Connections {
        target: window.chat
        function onCurrentConversationChanged() { if (window.modelErrorPage === "chat") window.models.clearError() }
    }
    Connections {
        target: window.models
        function onModelReady() { window.page = "chat"; chatView.focusComposer() }
        function onErrorChanged() { window.modelErrorPage = window.page }
    }

    // Keyboard shortcuts; the controls they stand for show them in their tooltips.
    function newChat() { window.chat.newConversation(); window.navigate("chat") }
    Shortcut { sequence: "Ctrl+N"; context: Qt.ApplicationShortcut; onActivated: window.newChat() }
    Shortcut { sequences: ["Ctrl+K", "Ctrl+F"]; context: Qt.ApplicationShortcut; onActivated: sidebar.focusSearch() }
    Shortcut {
        sequence: "Esc"
        enabled: window.chat.generating && !chatView.imageViewerOpen
        context: Qt.ApplicationShortcut
        onActivated: window.chat.stop()
    }
    Shortcut { sequence: "Ctrl+,"; context: Qt.ApplicationShortcut; onActivated: window.navigate("settings") }
    Shortcut { sequence: "Ctrl+O"; context: Qt.ApplicationShortcut; onActivated: { window.navigate("models"); modelPicker.openFile() } }
    Shortcut { sequence: "Ctrl+Q"; context: Qt.ApplicationShortcut; onActivated: Qt.quit() }
    Shortcut { sequence: "Ctrl+L"; context: Qt.ApplicationShortcut; onActivated: window.navigate("chat") }
    Shortcut { sequence: "F1"; context: Qt.ApplicationShortcut; onActivated: shortcutsDialog.open() }
    ShortcutsDialog { id: shortcutsDialog; objectName: "shortcutsDialog" }

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Sidebar {
            id: sidebar
            objectName: "sidebar"
            Layout.preferredWidth: 272
            Layout.fillHeight: true
            chat: window.chat
            page: window.metricsOpen && window.page === "chat" ? "metrics" : window.page
            onNavigate: function (target) { window.navigate(target) }
            onSearchLeft: window.focusPage()
        }
        Rectangle { Layout.fillHeight: true; width: 1; color: Theme.border }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0

            // Top bar: the conversation's title and the model in use.
            Rectangle {
                Layout.fillWidth: true
                implicitHeight: 56
                color: Theme.window
                RowLayout {
                    anchors.fill: parent
                    anchors.leftMargin: 20
                    anchors.rightMargin: 12
                    spacing: 10
                    Label {
                        objectName: "pageTitle"
                        text: window.page === "models" ? qsTr("Models")
                            : window.page === "settings" ? qsTr("Settings") : window.chat.currentTitle
                        font.pointSize: Theme.fontSize + 2
                        font.weight: Font.DemiBold
                        color: Theme.text
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    PromptPresetChooser {
                        visible: window.page === "chat"
                        compact: parent.width < 760
                        presets: window.chat.presets
                        conversationId: window.chat.currentConversationId
                    }
                    AbstractButton {
                        id: modelChip
                        objectName: "modelChip"
                        hoverEnabled: true
                        implicitHeight: 34
                        implicitWidth: chipRow.implicitWidth + 24
                        focusPolicy: Qt.TabFocus
                        Accessible.role: Accessible.Button
                        Accessible.name: window.models.loaded ? qsTr("Model: %1").arg(window.models.modelName) : qsTr("No model: choose one")
                        Accessible.onPressAction: if (enabled) clicked()
                        onClicked: window.navigate("models")
                        background: Rectangle {
                            radius: 17
                            color: modelChip.hovered ? Theme.hover : Theme.surface
                            border.width: modelChip.visualFocus ? 2 : 1 // reached with Tab
                            border.color: modelChip.visualFocus ? Theme.accent : Theme.border
                        }
                        contentItem: Item {
                            RowLayout {
                                id: chipRow
                                anchors.centerIn: parent
                                spacing: 8
                                Rectangle {
                                    implicitWidth: 8; implicitHeight: 8; Layout.preferredWidth: 8; Layout.preferredHeight: 8; radius: 4
                                    color: window.models.busy ? "#e3b341" : (window.models.loaded ? Theme.success : Theme.textFaint)
                                }
                                Label {
                                    text: window.models.busy ? window.models.stage
                                        : window.models.loaded ? window.models.modelName : qsTr("No model")
                                    color: Theme.text
                                    font.pointSize: Theme.fontSize
                                }
                                Icon { path: Icons.chevronDown; size: 16; color: Theme.textMuted }
                            }
                        }
                    }
                    ExportMenu {
                        chat: window.chat
                        visible: window.page === "chat" && window.chat.currentConversationId.length > 0
                    }
                    IconButton {
                        objectName: "metricsToggle"
                        iconPath: Icons.metrics
                        tip: qsTr("Engine metrics")
                        checked: window.metricsOpen
                        onClicked: window.metricsOpen = !window.metricsOpen
                    }
                }
                Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.border }
            }

            // A damaged conversation database set aside for a new one: said once, until dismissed.
            Rectangle {
                id: databaseNotice
                objectName: "databaseNotice"
                readonly property string message: window.backend ? window.backend.databaseNotice : ""
                visible: message.length > 0
                Layout.fillWidth: true
                implicitHeight: noticeRow.implicitHeight + 20
                color: Theme.accentSoft
                RowLayout {
                    id: noticeRow
                    anchors.fill: parent
                    anchors.leftMargin: 20
                    anchors.rightMargin: 8
                    Label {
                        objectName: "databaseNoticeText"
                        text: databaseNotice.message
                        color: Theme.text
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                        Accessible.role: Accessible.AlertMessage
                    }
                    IconButton {
                        objectName: "dismissDatabaseNotice"
                        iconPath: Icons.close
                        iconSize: 14
                        tip: qsTr("Dismiss")
                        onClicked: window.backend.dismissDatabaseNotice()
                    }
                }
                Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.border }
            }

            // Errors from the chat, and a model refused outside the Models page (a dropped file),
            // on the page where they came up, in a row of their own above it: laid over the chat
            // it covered the last reply's actions. They belong to what the user just did, so they
            // go when the user moves on to another page or chat; the Models page shows its own.
            Rectangle {
                id: toast
                objectName: "toast"
                readonly property bool modelErrorHere: window.page !== "models" && window.modelErrorPage === window.page
                readonly property string message: window.chat.errorMessage.length > 0 ? window.chat.errorMessage
                                                : (modelErrorHere ? window.models.errorMessage : "")
                visible: message.length > 0
                Layout.fillWidth: true
                implicitHeight: toastRow.implicitHeight + 16
                color: Theme.dangerSoft
                RowLayout {
                    id: toastRow
                    anchors.fill: parent
                    anchors.leftMargin: 20
                    anchors.rightMargin: 8
                    Rectangle { implicitWidth: 3; Layout.fillHeight: true; Layout.topMargin: 2; Layout.bottomMargin: 2; radius: 1.5; color: Theme.danger }
                    Label {
                        objectName: "toastText"
                        text: toast.message
                        color: Theme.text
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                        Layout.leftMargin: 6
                        Accessible.role: Accessible.AlertMessage
                    }
                    IconButton {
                        objectName: "dismissToast"
                        iconPath: Icons.close
                        iconSize: 14
                        tip: qsTr("Dismiss")
                        onClicked: { window.chat.clearError(); window.models.clearError() }
                    }
                }
                Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: Theme.danger; opacity: 0.5 }
            }

            StackLayout {
                Layout.fillWidth: true
                Layout.fillHeight: true
                currentIndex: window.page === "models" ? 1 : window.page === "settings" ? 2 : 0
                ChatView {
                    id: chatView
                    objectName: "chatView"
                    chat: window.chat
                    modelLoaded: window.models.loaded
                    modelName: window.models.modelName
                    onOpenModelsRequested: window.navigate("models")
                    offerDemo: window.models.offerDemo
                    contextLength: window.models.contextLength
                    trainedContextLength: window.models.trainedContextLength
                    // The chat's chosen prompt, the model's own or the global one (re-read when any changes).
                    systemPromptSet: (window.settings.systemPrompt, window.chat.presets.choiceRevision, window.chat.presets.loadedOverrides,
                                      window.chat.presets.systemPromptFor(window.chat.currentConversationId).trim().length > 0)
                    onContextSettingsRequested: { window.navigate("settings"); settingsPanel.showContextLength() }
                    onDemoRequested: window.models.loadDemo()
                }
                ModelPicker {
                    id: modelPicker
                    objectName: "modelPicker"
                    models: window.models
                    settings: window.settings
                    downloads: window.downloads
                    presets: window.chat.presets
                }
                SettingsPanel {
                    id: settingsPanel
                    objectName: "settingsPanel"
                    settings: window.settings
                    models: window.models
                    chat: window.chat
                    presets: window.chat.presets
                }
            }
        }

        // The docked metrics panel's place (the panel itself is drawn over it, below).
        Item {
            objectName: "metricsDock"
            visible: window.metricsOpen && !window.metricsOverlay
            Layout.preferredWidth: metricsPanel.width + 1
            Layout.fillHeight: true
        }
    }

    // One metrics panel, docked in its place at the right or, in a narrow window, over the chat
    // with a shadow on its left.
    Rectangle {
        objectName: "metricsShadow"
        visible: window.metricsOpen && window.metricsOverlay
        anchors.right: metricsPanel.left
        anchors.top: metricsPanel.top
        anchors.bottom: metricsPanel.bottom
        width: 18
        gradient: Gradient {
            orientation: Gradient.Horizontal
            GradientStop { position: 0; color: "transparent" }
            GradientStop { position: 1; color: Qt.rgba(0, 0, 0, Theme.dark ? 0.45 : 0.18) }
        }
    }
    Rectangle {
        visible: window.metricsOpen
        anchors.right: metricsPanel.left
        anchors.top: metricsPanel.top
        anchors.bottom: metricsPanel.bottom
        width: 1
        color: Theme.border
    }
    MetricsPanel {
        id: metricsPanel
        objectName: "metricsPanel"
        visible: window.metricsOpen
        readonly property bool overlaid: window.metricsOverlay
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        width: 380
        metrics: window.metrics
        onCloseRequested: window.metricsOpen = false
    }
    // The engine's figures reach the bindings only while the panel shows them.
    Binding {
        target: window.metrics
        property: "watched"
        value: window.metricsOpen
    }

    FileDropArea {
        objectName: "dropArea"
        anchors.fill: parent
        controller: window.models
        attachments: window.chat.attachments
        onImagesDropped: window.navigate("chat")
    }
}
