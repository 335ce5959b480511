import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The conversation: messages streaming in (the view follows the stream unless
// the user has scrolled up) and the composer below.
Item {
    id: view
    property var chat
    property bool modelLoaded: false
    property string modelName: ""
    property bool offerDemo: false // the first start: the shipped demo model, one click away
    property int contextLength: 0
    property int trainedContextLength: 0
    property bool systemPromptSet: false
    signal contextSettingsRequested()
    signal openModelsRequested()
    signal demoRequested()

    readonly property alias followStream: list.pinned
    // An image shown large: Escape closes it (and does not stop the reply).
    readonly property bool imageViewerOpen: imageViewer.opened
    function focusComposer() { composer.focusInput() }

    // Screen readers speak a notification as it appears: a finished reply is announced once,
    // whole, rather than as it streams.
    Item {
        id: replyAnnouncement
        objectName: "replyAnnouncement"
        width: 1
        height: 1
        visible: false
        Accessible.role: Accessible.Notification
        function announce(text, state) {
            visible = false
            Accessible.name = state === "stopped" ? qsTr("Reply stopped: %1").arg(text)
                            : state === "failed" ? qsTr("Reply failed: %1").arg(text)
                            : qsTr("Reply: %1").arg(text)
            visible = true
        }
    }

    ListView {
        id: list
        objectName: "messageList"
        property bool pinned: true
        property real autoY: 0
        anchors.top: parent.top
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: composerArea.top
        model: view.chat ? view.chat.messages : null
        clip: true
        cacheBuffer: 4000
        boundsBehavior: Flickable.StopAtBounds
        bottomMargin: 12
        topMargin: 8
        ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the conversation") }

        function follow() {
            if (!pinned || count === 0) return
            // While a reply streams only the last message grows, and it is laid out already: the
            // end is where its bottom is. positionViewAtEnd() lays the view out again, which took
            // 9-22 ms of the window's time per streamed piece.
            if (view.chat && view.chat.generating)
                contentY = Math.max(originY - topMargin, originY + contentHeight + bottomMargin - height)
            else
                positionViewAtEnd()
            autoY = contentY
        }
        onCountChanged: { if (count > 0 && view.chat && view.chat.generating) pinned = true; Qt.callLater(follow) }
        onContentHeightChanged: Qt.callLater(follow)
        onHeightChanged: Qt.callLater(follow)
        onModelChanged: { pinned = true; Qt.callLater(follow) }
        // Only a scroll the view did not make itself can unpin it.
        onContentYChanged: {
            if (Math.abs(contentY - autoY) < 2) return
            pinned = atYEnd || contentY + height >= contentHeight + originY - 48
        }
        // The view at its end follows the stream again, however it got there: a resize (the window,
        // the metrics panel) moves contentY in ways the rule above read as a scroll up.
        onAtYEndChanged: if (atYEnd) pinned = true

        delegate: MessageDelegate {
            isLast: index === list.count - 1
            busy: view.chat ? view.chat.generating : false
            onCopyRequested: function (text) { view.chat.copyText(text) }
            onRegenerateRequested: view.chat.regenerate()
            onReplyCompleted: function (text, state) { replyAnnouncement.announce(text, state) }
            onEditRequested: function (id, text) { view.chat.editAndResend(id, text) }
            onVersionRequested: function (id, step) { view.chat.switchVersion(id, step) }
            onToolCallAnswered: function (id, callId, decision) { view.chat.answerToolCall(id, callId, decision) }
            onImageOpened: function (sha256, name) { imageViewer.show(sha256, name) }
            contextLength: view.contextLength
            trainedContextLength: view.trainedContextLength
            systemPromptSet: view.systemPromptSet
            onContextSettingsRequested: view.contextSettingsRequested()
            onChooseModelRequested: view.openModelsRequested()
        }
    }

    // Empty chat: a welcome, or a nudge to load a model first.
    ColumnLayout {
        objectName: "welcome"
        anchors.centerIn: list
        visible: list.count === 0
        spacing: 14
        width: Math.min(parent.width - 64, 520)
        Rectangle {
            Layout.alignment: Qt.AlignHCenter
            implicitWidth: 72; implicitHeight: 72; Layout.preferredWidth: 72; Layout.preferredHeight: 72; radius: 22
            color: Theme.accentSoft
            Icon { anchors.centerIn: parent; path: Icons.flame; size: 42; color: Theme.accent }
        }
        Label {
            objectName: "welcomeTitle"
            Layout.alignment: Qt.AlignHCenter
            text: view.modelLoaded ? qsTr("What's on your mind?") : qsTr("No model loaded")
            font.pointSize: Theme.huge * 0.8
            font.weight: Font.DemiBold
            color: Theme.text
        }
        Label {
            objectName: "welcomeText"
            Layout.fillWidth: true
            horizontalAlignment: Text.AlignHCenter
            wrapMode: Text.Wrap
            color: Theme.textMuted
            font.pointSize: Theme.fontSize
            text: view.modelLoaded
                  ? qsTr("Chatting with %1. Everything runs on this computer; nothing leaves it.").arg(view.modelName)
                  : qsTr("Pick a model, or drop a .gguf file anywhere on this window.")
        }
        PillButton {
            objectName: "chatChooseModelButton"
            Layout.alignment: Qt.AlignHCenter
            visible: !view.modelLoaded
            primary: true
            iconPath: Icons.model
            text: qsTr("Choose a model")
            onClicked: view.openModelsRequested()
        }
        PillButton {
            objectName: "chatTryDemoButton"
            Layout.alignment: Qt.AlignHCenter
            visible: !view.modelLoaded && view.offerDemo
            iconPath: Icons.flame
            text: qsTr("Try the demo model (a toy that writes children's stories)")
            onClicked: view.demoRequested()
        }
    }

    AbstractButton {
        id: scrollDown
        objectName: "scrollToBottomButton"
        // Only when there is something below: at the end it would cover the last reply's stats.
        visible: !list.pinned && !list.atYEnd && list.count > 0
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottom: composerArea.top
        anchors.bottomMargin: 10
        width: 36; height: 36
        hoverEnabled: true
        focusPolicy: Qt.TabFocus
        Accessible.role: Accessible.Button
        Accessible.name: qsTr("Scroll to the latest message")
        Accessible.onPressAction: if (enabled) clicked()
        onClicked: { list.pinned = true; list.follow() }
        background: Rectangle {
            radius: 18
            color: Theme.surfaceRaised
            border.color: Theme.border
        }
        contentItem: Item { Icon { anchors.centerIn: parent; path: Icons.arrowDown; size: 18; color: Theme.text } }
    }

    ChooserDialog {
        id: imageChooser
        objectName: "imageFileDialog"
        title: qsTr("Attach images")
        selectMultiple: true
        nameFilters: [qsTr("Images (*.png *.jpg *.jpeg *.webp)"), qsTr("All files (*)")]
        onAccepted: view.chat.attachments.attachFiles(selectedFiles)
    }
    ImageViewer {
        id: imageViewer
        objectName: "imageViewer"
    }

    Item {
        id: composerArea
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        height: composer.height + Math.max(hint.height, toolToggle.visible ? toolToggle.height - 6 : 0) + 28
        Composer {
            id: composer
            objectName: "composer"
            width: Math.min(parent.width - 48, 780)
            anchors.horizontalCenter: parent.horizontalCenter
            anchors.top: parent.top
            anchors.topMargin: 4
            generating: view.chat ? view.chat.generating : false
            canSend: view.chat ? view.chat.canSend : false
            placeholder: view.modelLoaded ? qsTr("Message %1…").arg(view.modelName) : qsTr("Load a model to start chatting")
            sendHandler: function (text) { return view.chat.send(text) }
            onStopRequested: view.chat.stop()
            attachments: view.chat && view.chat.attachments ? view.chat.attachments : null
            // Said at once when the model reads no images, rather than after choosing files.
            onAttachRequested: if (view.chat.attachments.checkAccepted()) imageChooser.open()
            onImageOpened: function (sha256, name) { imageViewer.show(sha256, name) }
        }
        // With MCP servers set up: the next reply must call one of their tools.
        CheckBox {
            id: toolToggle
            objectName: "requireToolCallToggle"
            visible: view.chat !== null && view.chat.mcpServers !== null && view.chat.mcpServers.count > 0
            anchors.top: composer.bottom
            anchors.left: composer.left
            padding: 0
            text: qsTr("Use a tool")
            font.pointSize: Theme.small * 0.95
            checked: view.chat !== null && view.chat.requireToolCall
            onToggled: { view.chat.requireToolCall = checked; checked = Qt.binding(() => view.chat !== null && view.chat.requireToolCall) }
            ToolTip.visible: hovered
            ToolTip.text: qsTr("The next reply begins with a call of one of the MCP servers' tools")
        }
        Label {
            id: hint
            objectName: "composerHint"
            anchors.top: composer.bottom
            anchors.topMargin: 6
            anchors.horizontalCenter: parent.horizontalCenter
            text: qsTr("Enter to send · Shift+Enter for a new line")
            // In a narrow column (a small window with the metrics panel open) it is cut at the
            // column's edge rather than running under the sidebar and the panel.
            width: Math.min(implicitWidth, parent.width)
            elide: Text.ElideRight
            horizontalAlignment: Text.AlignHCenter
            color: Theme.textFaint
            font.pointSize: Theme.small * 0.95
        }
    }
}
