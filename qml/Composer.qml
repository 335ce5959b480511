import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Where the user writes. Enter sends, Shift+Enter starts a new line; while a
// reply streams the send button becomes a stop button. Images attached to the
// message (the button, a drop on the window, Ctrl+V) show as thumbnails above
// the text, each with a button that takes it off.
Rectangle {
    id: composer
    property bool generating: false
    property bool canSend: true
    property string placeholder: qsTr("Message Hearth…")
    property alias text: input.text
    // Returns true when the message was taken (the field is then cleared).
    property var sendHandler: function (text) { return true }
    // The images attached (ChatController's ImageAttachments); null: no images.
    property var attachments: null
    readonly property int attachmentCount: attachments ? attachments.count : 0
    signal stopRequested()
    signal attachRequested()                       // the attach button: choose image files
    signal imageOpened(string sha256, string name) // a thumbnail clicked: show it large

    function submit() {
        const text = input.text.trim()
        if (generating || !canSend || (text.length === 0 && attachmentCount === 0))
            return false
        if (sendHandler(text)) {
            input.clear()
            return true
        }
        return false
    }
    function focusInput() { input.forceActiveFocus() }

    implicitHeight: Math.min(Math.max(input.implicitHeight, 24) + 28, 240)
                    + (attachmentStrip.visible ? attachmentStrip.implicitHeight + 8 : 0)
    radius: 22
    color: Theme.surfaceRaised
    border.width: input.activeFocus ? 1.5 : 1
    border.color: input.activeFocus ? Theme.accent : Theme.border

    AttachmentStrip {
        id: attachmentStrip
        objectName: "attachmentStrip"
        visible: composer.attachmentCount > 0 || (composer.attachments !== null && composer.attachments.reading)
        anchors.top: parent.top
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.topMargin: 10
        anchors.leftMargin: 14
        anchors.rightMargin: 14
        attachments: composer.attachments
        onImageOpened: function (sha256, name) { composer.imageOpened(sha256, name) }
    }

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: attachButton.visible ? 8 : 18
        anchors.rightMargin: 8
        anchors.topMargin: 6 + (attachmentStrip.visible ? attachmentStrip.implicitHeight + 8 : 0)
        anchors.bottomMargin: 6
        spacing: 8

        IconButton {
            id: attachButton
            objectName: "attachImageButton"
            visible: composer.attachments !== null
            Layout.alignment: Qt.AlignBottom
            Layout.bottomMargin: 3
            iconPath: Icons.image
            tip: qsTr("Attach images (or drop them on the window, or paste them)")
            Accessible.name: qsTr("Attach images")
            Accessible.description: tip
            onClicked: composer.attachRequested()
        }

        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the message") }
            ScrollBar.horizontal.policy: ScrollBar.AlwaysOff // the text wraps
            TextArea {
                id: input
                objectName: "composerInput"
                wrapMode: TextEdit.Wrap
                placeholderText: composer.placeholder
                placeholderTextColor: Theme.textFaint
                color: Theme.text
                font.pointSize: Theme.fontSize + 1
                selectByMouse: true
                background: null
                leftPadding: 0
                rightPadding: 0
                topPadding: 8
                bottomPadding: 8
                Accessible.name: qsTr("Message")
                Accessible.description: qsTr("Enter sends, Shift+Enter starts a new line, Ctrl+Tab types a tab")
                Keys.onPressed: function (event) {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                            && !(event.modifiers & Qt.ShiftModifier)) {
                        event.accepted = true
                        composer.submit()
                    } else if (event.matches(StandardKey.Paste) && composer.attachments !== null
                               && composer.attachments.pasteFromClipboard()) {
                        event.accepted = true // an image (or image files) joined the message, not text
                    } else if (event.key === Qt.Key_Tab && (event.modifiers & Qt.ControlModifier)) {
                        // Tab moves on to the next control, as everywhere else; Ctrl+Tab types one.
                        event.accepted = true
                        input.insert(input.cursorPosition, "\t")
                    } else if (event.key === Qt.Key_Tab || event.key === Qt.Key_Backtab) {
                        event.accepted = true
                        const next = input.nextItemInFocusChain(event.key === Qt.Key_Tab
                                                                && !(event.modifiers & Qt.ShiftModifier))
                        if (next) next.forceActiveFocus(Qt.TabFocusReason)
                    }
                }
            }
        }

        AbstractButton {
            id: actionButton
            objectName: composer.generating ? "stopButton" : "sendButton"
            Layout.alignment: Qt.AlignBottom
            Layout.bottomMargin: 2
            implicitWidth: 36
            implicitHeight: 36
            hoverEnabled: true
            focusPolicy: Qt.TabFocus
            enabled: composer.generating
                     || (composer.canSend && (input.text.trim().length > 0 || composer.attachmentCount > 0))
            Accessible.role: Accessible.Button
            Accessible.name: composer.generating ? qsTr("Stop generating") : qsTr("Send")
            Accessible.onPressAction: if (enabled) clicked()
            onClicked: composer.generating ? composer.stopRequested() : composer.submit()
            background: Rectangle {
                radius: width / 2
                color: !actionButton.enabled ? Theme.hover
                     : composer.generating ? Theme.text
                     : (actionButton.hovered ? Theme.accentHover : Theme.accent)
                Rectangle { // reached with Tab: a ring around the filled circle
                    visible: actionButton.visualFocus
                    anchors.fill: parent
                    anchors.margins: -3
                    radius: width / 2
                    color: "transparent"
                    border.width: 2
                    border.color: Theme.accent
                }
            }
            // Two icons, each with its own size and colour.
            contentItem: Item {
                Icon {
                    anchors.centerIn: parent
                    visible: composer.generating
                    path: Icons.stop
                    size: 16
                    color: Theme.window
                }
                Icon {
                    anchors.centerIn: parent
                    visible: !composer.generating
                    path: Icons.send
                    size: 20
                    color: actionButton.enabled ? Theme.textOnAccent : Theme.textFaint
                }
            }
            readonly property string tip: composer.generating ? qsTr("Stop generating (Esc)") : qsTr("Send (Enter)")
            ToolTip.visible: hovered
            ToolTip.delay: 600
            ToolTip.text: tip
            // Qt 6.4's shared tooltip keeps the text it opened with: a button that changes under
            // the pointer (Send to Stop) shows it again with the new one.
            onTipChanged: if (hovered) ToolTip.show(tip)
        }
    }
}
