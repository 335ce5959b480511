import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Hearth // MarkdownStyler, a C++ type of this module

// One message of the chat. The user's sit in a bubble on the right; the
// assistant's are Markdown on the left, with code blocks, stats and actions.
Item {
    id: message
    required property int index
    required property string messageId
    required property string author
    // The text once it no longer streams (empty while it does: a growing reply is shown by its
    // blocks, and written here whole at every piece it would fill QML's heap), and whether there
    // is any yet.
    required property string settledContent
    required property bool hasContent
    required property string messageState
    required property bool streaming
    required property string stats
    required property var blocks
    required property bool outOfView       // the model no longer sees this message (context shift)
    required property bool contextBoundary // the first message it still sees after ones it does not
    // Which of the message's versions this is (edits, regenerated replies: branches), of how many.
    required property int version
    required property int versionCount
    // A reply's function calls, and a tool message's call (MessageListModel's roles).
    required property var toolCalls
    required property var toolResult
    // The images the message shows, each {sha256, name, bytes} (MessageListModel's role).
    required property var images
    property bool isLast: false
    property bool busy: false
    property real maxContentWidth: 780
    // For the context notice: the context each conversation gets, the most the model allows,
    // and whether a system prompt (always kept in view) takes part of it.
    property int contextLength: 0
    property int trainedContextLength: 0
    property bool systemPromptSet: false
    signal contextSettingsRequested()
    signal chooseModelRequested()
    signal copyRequested(string text)
    signal regenerateRequested()
    signal editRequested(string messageId, string text)
    // The previous (-1) or next (1) version of this message, and the branch below it.
    signal versionRequested(string messageId, int step)
    // A reply of the assistant's has finished streaming (done, stopped or failed).
    signal replyCompleted(string text, string state)
    // The user's answer to a call of this reply that waits: "once", "always" or "deny".
    signal toolCallAnswered(string messageId, string callId, string decision)
    // One of the message's images clicked: show it large.
    signal imageOpened(string sha256, string name)

    readonly property bool isUser: author === "user"
    readonly property bool isTool: author === "tool"
    property bool editing: false
    function sendEdit() {
        const box = editLoader.item
        if (!box || !box.canSend) return
        const text = box.text
        message.editing = false
        message.editRequested(message.messageId, text)
    }
    width: ListView.view ? ListView.view.width : 600
    implicitHeight: layout.implicitHeight + 18

    HoverHandler { id: hover }
    onStreamingChanged: if (!streaming && !isUser) replyCompleted(settledContent, messageState)

    ColumnLayout {
        id: layout
        width: Math.min(message.width - 48, message.maxContentWidth)
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.top: parent.top
        anchors.topMargin: 10
        spacing: 4

        // --- where the model's view of the conversation starts, after a context shift ---
        // Made only where the shift happened: every other message would carry it hidden.
        Loader {
            active: message.contextBoundary
            visible: active
            Layout.fillWidth: true
            sourceComponent: ColumnLayout {
                spacing: 0
                RowLayout {
                    objectName: "contextBoundary"
                    Layout.fillWidth: true
                    Layout.bottomMargin: 10
                    spacing: 10
                    Rectangle { Layout.fillWidth: true; implicitHeight: 1; color: Theme.border }
                    Label {
                        objectName: "contextBoundaryLabel"
                        text: qsTr("Earlier messages are no longer in the model's view")
                        color: Theme.textMuted
                        font.pointSize: Theme.small
                        font.italic: true
                        // Wraps in a narrow column rather than widening the message past it.
                        wrapMode: Text.Wrap
                        horizontalAlignment: Text.AlignHCenter
                        Layout.fillWidth: true
                        Layout.maximumWidth: implicitWidth
                    }
                    Rectangle { Layout.fillWidth: true; implicitHeight: 1; color: Theme.border }
                }
                // Why, and the fix: a larger context in the settings, or, where the model allows no
                // more, another model.
                ColumnLayout {
                    objectName: "contextExplanation"
                    visible: message.contextLength > 0
                    readonly property bool canGrow: message.contextLength < message.trainedContextLength
                    Layout.fillWidth: true
                    Layout.preferredWidth: 0
                    Layout.bottomMargin: 10
                    spacing: 6
                    Label {
                        objectName: "contextExplanationText"
                        text: qsTr("The model sees %n token(s) at a time (its context), and this conversation no longer fits: "
                                   + "the oldest messages were let go to make room for the reply.", "", message.contextLength)
                              + (message.systemPromptSet ? " " + qsTr("The system prompt is always kept and takes part of that room.") : "")
                              + " " + (parent.canGrow
                                       ? qsTr("A larger context keeps more of the conversation in view.")
                                       : qsTr("This model was trained for %n token(s) at most; a model with a longer context keeps more in view.", "", message.trainedContextLength))
                        color: Theme.textMuted
                        font.pointSize: Theme.small
                        wrapMode: Text.Wrap
                        horizontalAlignment: Text.AlignHCenter
                        // Its width from the column alone: the unwrapped text would widen the whole message.
                        Layout.fillWidth: true
                        Layout.preferredWidth: 0
                    }
                    PillButton {
                        objectName: "contextFixButton"
                        Layout.alignment: Qt.AlignHCenter
                        iconPath: parent.canGrow ? Icons.settings : Icons.model
                        text: parent.canGrow ? qsTr("Set a larger context…") : qsTr("Choose another model…")
                        onClicked: parent.canGrow ? message.contextSettingsRequested() : message.chooseModelRequested()
                    }
                }
            }
        }

        // --- the images the message shows, above its text (kept while it is edited) ---
        Flow {
            id: imageFlow
            objectName: "messageImages"
            readonly property real side: Math.min(112, (layout.width - 16) / 3)
            visible: message.images && message.images.length > 0
            opacity: message.outOfView ? 0.55 : 1
            Layout.alignment: message.isUser ? Qt.AlignRight : Qt.AlignLeft
            Layout.leftMargin: message.isUser ? 0 : 44
            // As wide as its thumbnails (so that a user's sit at the right, in order), wrapping
            // at the bubble's width.
            Layout.preferredWidth: visible ? Math.min(layout.width * 0.8, message.images.length * (side + spacing) - spacing) : 0
            spacing: 8
            Repeater {
                model: message.images
                delegate: ImageThumbnail {
                    required property var modelData
                    objectName: "messageImage"
                    side: imageFlow.side
                    sha256: modelData.sha256
                    name: modelData.name
                    onClicked: message.imageOpened(modelData.sha256, modelData.name)
                }
            }
        }

        // --- the user's message ---
        // Made for a user's message only (the reply's parts below likewise for a reply only).
        Loader {
            active: message.isUser
            visible: active && !message.editing && message.hasContent // images alone: no bubble
            opacity: message.outOfView ? 0.55 : 1
            Layout.alignment: Qt.AlignRight
            sourceComponent: Rectangle {
                id: bubble
                objectName: "userBubble"
                readonly property real maxTextWidth: layout.width * 0.8 - 32
                implicitWidth: userText.width + 32
                implicitHeight: userText.implicitHeight + 22
                radius: 18
                color: Theme.userBubble
                Text {
                    id: naturalWidth // the unwrapped width of the text, to size the bubble
                    visible: false
                    text: message.settledContent
                    font: userText.font
                }
                TextEdit {
                    id: userText
                    objectName: "userText"
                    x: 16
                    y: 11
                    width: Math.min(naturalWidth.implicitWidth + 2, bubble.maxTextWidth)
                    text: message.settledContent
                    readOnly: true
                    selectByMouse: true
                    wrapMode: TextEdit.Wrap
                    color: Theme.text
                    font.pointSize: Theme.fontSize + 1
                    selectionColor: Theme.accent
                }
            }
        }
        // The edit box, made only while the message is edited (every message has one to offer).
        Loader {
            id: editLoader
            active: message.editing
            visible: active
            Layout.fillWidth: true
            onLoaded: {
                item.text = message.settledContent
                item.forceEditorFocus()
            }
            sourceComponent: Rectangle {
                property alias text: editor.text
                readonly property bool canSend: editSendButton.enabled
                function forceEditorFocus() { editor.forceActiveFocus() }
                implicitHeight: editColumn.implicitHeight + 24
                radius: 16
                color: Theme.userBubble
                border.color: Theme.accent
                ColumnLayout {
                    id: editColumn
                    anchors.fill: parent
                    anchors.margins: 12
                    TextArea {
                        id: editor
                        objectName: "messageEditor"
                        Layout.fillWidth: true
                        wrapMode: TextEdit.Wrap
                        color: Theme.text
                        font.pointSize: Theme.fontSize + 1
                        background: null
                        Accessible.name: qsTr("Edited message")
                        Accessible.description: qsTr("Enter sends, Shift+Enter starts a new line, Escape cancels")
                        Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                        Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                        // As in the composer: Enter sends, Shift+Enter starts a new line.
                        Keys.onPressed: function (event) {
                            if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                    && !(event.modifiers & Qt.ShiftModifier)) {
                                event.accepted = true
                                message.sendEdit()
                            } else if (event.key === Qt.Key_Escape) {
                                event.accepted = true
                                message.editing = false
                            }
                        }
                    }
                    RowLayout {
                        Layout.alignment: Qt.AlignRight
                        PillButton { objectName: "editCancelButton"; text: qsTr("Cancel"); onClicked: message.editing = false }
                        PillButton {
                            id: editSendButton
                            objectName: "editSendButton"
                            text: qsTr("Send")
                            primary: true
                            // Empty text is fine when the message shows images: they stay with it.
                            enabled: !message.busy && (editor.text.trim().length > 0 || message.images.length > 0)
                            onClicked: message.sendEdit()
                        }
                    }
                }
            }
        }

        // --- a tool's result, under the call it answers ---
        Loader {
            active: message.isTool
            visible: active
            opacity: message.outOfView ? 0.55 : 1
            Layout.fillWidth: true
            Layout.leftMargin: 44
            sourceComponent: ToolResultView {
                result: message.toolResult || ({})
                content: message.settledContent
            }
        }

        // --- the assistant's message ---
        Loader {
            active: !message.isUser && !message.isTool
            visible: active
            opacity: message.outOfView ? 0.55 : 1
            Layout.fillWidth: true
            sourceComponent: RowLayout {
                spacing: 14
                Rectangle {
                    Layout.alignment: Qt.AlignTop
                    implicitWidth: 30; implicitHeight: 30; Layout.preferredWidth: 30; Layout.preferredHeight: 30; radius: 15
                    color: Theme.accentSoft
                    Icon { anchors.centerIn: parent; path: Icons.flame; size: 18; color: Theme.accent }
                }
                // A Column, not a ColumnLayout: the block Repeater inserts and removes delegates while
                // a reply streams, and Qt 6.4's layouts crashed on a delegate removed mid-rearrange.
                Column {
                    id: replyColumn
                    // Hidden from screen readers while it grows, which they would read piece by piece;
                    // ChatView announces the reply once it is complete.
                    Accessible.ignored: message.streaming
                    // Its width comes from the row alone: a Column's implicit width is its widest
                    // child's, and the blocks take this column's width, so the width of an earlier
                    // layout would feed back into the row's and stay.
                    Layout.fillWidth: true
                    Layout.preferredWidth: 0
                    spacing: 8
                    Label {
                        objectName: "replyAuthor"
                        text: qsTr("Hearth")
                        font.pointSize: Theme.fontSize
                        font.weight: Font.DemiBold
                        color: Theme.text
                        topPadding: 5
                    }
                    Repeater {
                        id: blockRepeater
                        // A MarkdownBlockModel: while a reply streams only its last block changes, so
                        // only that block's delegate is updated; finished blocks keep their layout.
                        model: message.blocks
                        delegate: Item {
                            id: block
                            required property int index
                            required property string kind
                            // The block's text once final; the growing block's comes by BlockTextFeed.
                            required property string settledText
                            required property string language
                            // The growing last block of a streaming reply is plain text: Markdown
                            // would be parsed again on every update. It becomes Markdown once, when
                            // the next block starts or the reply ends.
                            readonly property bool growing: message.streaming && index === blockRepeater.count - 1
                            width: replyColumn.width
                            implicitHeight: rich.status === Loader.Ready ? rich.height : plain.height
                            height: implicitHeight
                            // A paragraph that ends while the reply streams becomes Markdown in
                            // an event of its own, after the piece that ended it: the two together
                            // held the window up to 30 ms. Its plain text stays until then. (Not
                            // incubated asynchronously: Qt's asynchronous incubation beside a
                            // model that changes has crashed apps.)
                            property bool settled: false
                            readonly property bool showsMarkdown: kind === "code"
                                                                  || (!growing && (settled || !message.streaming))
                            Timer {
                                interval: 0
                                running: !block.growing && !block.settled && message.streaming
                                onTriggered: block.settled = true
                            }
                            Loader {
                                id: plain
                                width: parent.width
                                active: block.kind !== "code" && (block.growing || rich.status !== Loader.Ready)
                                sourceComponent: growingComponent
                            }
                            Loader {
                                id: rich
                                width: parent.width
                                active: block.showsMarkdown
                                visible: status === Loader.Ready
                                sourceComponent: block.kind === "code" ? codeComponent : textComponent
                            }
                            Component {
                                // A plain Text while the block grows: it lays out with less work than a
                                // TextEdit's document, and the update rate of a streaming reply makes
                                // that work matter (it takes CPU from generation).
                                id: growingComponent
                                Text {
                                    id: growingText
                                    objectName: "assistantText"
                                    textFormat: Text.PlainText
                                    wrapMode: Text.Wrap
                                    color: Theme.text
                                    font.pointSize: Theme.fontSize + 1
                                    BlockTextFeed { blocks: message.blocks; row: block.index; target: growingText }
                                }
                            }
                            Component {
                                id: textComponent
                                TextEdit {
                                    id: markdownText
                                    objectName: "assistantText"
                                    text: block.settledText
                                    textFormat: TextEdit.MarkdownText
                                    readOnly: true
                                    selectByMouse: true
                                    wrapMode: TextEdit.Wrap
                                    color: Theme.text
                                    font.pointSize: Theme.fontSize + 1
                                    selectionColor: Theme.accent
                                    onLinkActivated: function (link) { Qt.openUrlExternally(link) }
                                    // Blockquotes tinted and indented, tables with single borders.
                                    MarkdownStyler {
                                        document: markdownText.textDocument
                                        quoteBackground: Theme.hover
                                        tableBorder: Theme.border
                                    }
                                }
                            }
                            Component {
                                id: codeComponent
                                CodeBlock {
                                    objectName: "codeBlock"
                                    code: block.settledText
                                    language: block.language
                                    onCopyRequested: function (text) { message.copyRequested(text) }
                                }
                            }
                        }
                    }
                    // The typing dots, made only while the reply has no text yet: a running animation
                    // makes the window render every frame, which under software rendering costs
                    // generation speed.
                    Loader {
                        active: message.streaming && !message.hasContent
                        visible: active
                        sourceComponent: Row {
                            spacing: 5
                            topPadding: 4
                            Repeater {
                                model: 3
                                Rectangle {
                                    required property int index
                                    width: 8; height: 8; radius: 4
                                    color: Theme.textMuted
                                    SequentialAnimation on opacity {
                                        loops: Animation.Infinite
                                        PauseAnimation { duration: index * 150 }
                                        NumberAnimation { from: 0.2; to: 1; duration: 400 }
                                        NumberAnimation { from: 1; to: 0.2; duration: 400 }
                                        PauseAnimation { duration: (2 - index) * 150 }
                                    }
                                }
                            }
                        }
                    }
                    // The reply's function calls, each with its server, tool and arguments.
                    Repeater {
                        model: message.toolCalls
                        delegate: ToolCallCard {
                            required property var modelData
                            width: replyColumn.width
                            messageId: message.messageId
                            call: modelData
                            onAnswered: function (messageId, callId, decision) {
                                message.toolCallAnswered(messageId, callId, decision)
                            }
                        }
                    }
                    Label {
                        objectName: "replyEnding"
                        visible: message.messageState === "stopped" || message.messageState === "failed"
                        text: message.messageState === "stopped" ? qsTr("Stopped") : qsTr("Failed: %1").arg(message.stats)
                        color: message.messageState === "failed" ? Theme.danger : Theme.textMuted
                        font.pointSize: Theme.small
                        font.italic: true
                        wrapMode: Text.Wrap
                        width: replyColumn.width
                    }
                }
            }
        }

        // --- "‹ 2 / 3 ›": the message's versions, each with the branch that follows it ---
        // Made only for a message with versions.
        Loader {
            active: message.versionCount > 1
            visible: active && !message.editing
            Layout.alignment: message.isUser ? Qt.AlignRight : Qt.AlignLeft
            Layout.leftMargin: message.isUser ? 0 : 40
            sourceComponent: RowLayout {
                objectName: "versionSwitcher"
                spacing: 0
                IconButton {
                    objectName: "previousVersionButton"
                    iconPath: Icons.chevronLeft
                    tip: qsTr("Previous version")
                    Accessible.name: qsTr("Previous version of this message")
                    Accessible.description: versionLabel.text
                    iconSize: 15; implicitWidth: 28; implicitHeight: 28
                    enabled: !message.busy && message.version > 1
                    onClicked: message.versionRequested(message.messageId, -1)
                }
                Label {
                    id: versionLabel
                    objectName: "versionLabel"
                    text: qsTr("%1 / %2").arg(message.version).arg(message.versionCount)
                    Accessible.name: qsTr("Version %1 of %2").arg(message.version).arg(message.versionCount)
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                }
                IconButton {
                    objectName: "nextVersionButton"
                    iconPath: Icons.chevronRight
                    tip: qsTr("Next version")
                    Accessible.name: qsTr("Next version of this message")
                    Accessible.description: versionLabel.text
                    iconSize: 15; implicitWidth: 28; implicitHeight: 28
                    enabled: !message.busy && message.version < message.versionCount
                    onClicked: message.versionRequested(message.messageId, 1)
                }
            }
        }

        // --- actions and stats ---
        // The stats line wraps inside the column: a row of fixed width as wide as its text set
        // the whole column's minimum width, and the layout then stretched the finished reply's
        // text to it, past the chat column's edge.
        RowLayout {
            objectName: "messageActions"
            visible: !message.isTool
            Layout.alignment: message.isUser ? Qt.AlignRight : Qt.AlignLeft
            Layout.fillWidth: !message.isUser
            Layout.leftMargin: message.isUser ? 0 : 40
            spacing: 2
            // Shown on hover, for the last reply, and while Tab is on one of them.
            readonly property bool focused: copyButton.activeFocus || editButton.activeFocus || regenerateButton.activeFocus
            opacity: (hover.hovered || focused || (message.isLast && !message.isUser)) && !message.streaming && !message.editing ? 1 : 0
            // Hidden while the reply streams, so not clickable or reachable by Tab then either
            // (and the text to copy is not settled yet).
            enabled: !message.streaming
            Behavior on opacity { NumberAnimation { duration: 120 } }
            IconButton {
                id: copyButton
                // A tick and "Copied" for a moment after a click: the copy happened.
                property bool copied: false
                iconPath: copied ? Icons.check : Icons.copy
                tip: copied ? qsTr("Copied") : qsTr("Copy")
                iconColor: copied ? Theme.success : Theme.textMuted
                iconSize: 15; implicitWidth: 28; implicitHeight: 28
                objectName: "copyMessageButton"
                onClicked: { message.copyRequested(message.settledContent); copied = true; copiedTimer.restart() }
                Timer { id: copiedTimer; interval: 1500; onTriggered: copyButton.copied = false }
            }
            IconButton {
                id: editButton
                objectName: "editMessageButton"
                visible: message.isUser
                iconPath: Icons.edit; tip: qsTr("Edit and resend"); iconSize: 15; implicitWidth: 28; implicitHeight: 28
                enabled: !message.busy
                onClicked: message.editing = true
            }
            IconButton {
                id: regenerateButton
                visible: !message.isUser && message.isLast
                objectName: "regenerateButton"
                iconPath: Icons.regenerate; tip: qsTr("Regenerate"); iconSize: 15; implicitWidth: 28; implicitHeight: 28
                enabled: !message.busy
                onClicked: message.regenerateRequested()
            }
            Label {
                visible: !message.isUser && message.stats.length > 0 && message.messageState !== "failed"
                objectName: "replyStats"
                text: message.stats
                color: Theme.textFaint
                font.pointSize: Theme.small
                wrapMode: Text.Wrap
                Layout.fillWidth: true
                Layout.leftMargin: 6
            }
        }
    }
}
