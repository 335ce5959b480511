import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Conversations (new, search, rename, delete) and the way to the other pages.
Rectangle {
    id: sidebar
    property var chat
    property string page: "chat"
    signal navigate(string page)
    signal searchLeft() // Escape in the empty search field: the chat takes the keys again
    function focusSearch() { search.forceActiveFocus(Qt.ShortcutFocusReason); search.selectAll() }
    // The list model's periods are keys ("Today", ...): translated here, where they are shown.
    function periodLabel(period) {
        switch (period) {
        case "Today": return qsTr("Today")
        case "Yesterday": return qsTr("Yesterday")
        case "Previous 7 days": return qsTr("Previous 7 days")
        case "Older": return qsTr("Older")
        }
        return period
    }

    color: Theme.sidebar

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 12
        spacing: 10

        RowLayout {
            Layout.fillWidth: true
            Layout.leftMargin: 6
            spacing: 10
            Rectangle {
                implicitWidth: 30; implicitHeight: 30; Layout.preferredWidth: 30; Layout.preferredHeight: 30; radius: 9
                gradient: Gradient {
                    GradientStop { position: 0; color: "#f59a55" }
                    GradientStop { position: 1; color: "#e0582b" }
                }
                Icon { anchors.centerIn: parent; path: Icons.flame; size: 19; color: "white" }
            }
            Label {
                text: "Hearth"
                font.pointSize: Theme.large
                font.weight: Font.Bold
                color: Theme.text
                Layout.fillWidth: true
            }
        }

        PillButton {
            objectName: "newChatButton"
            Layout.fillWidth: true
            Layout.topMargin: 6
            iconPath: Icons.plus
            text: qsTr("New chat")
            tip: qsTr("New chat (Ctrl+N)")
            onClicked: { sidebar.chat.newConversation(); sidebar.navigate("chat") }
        }

        Rectangle {
            Layout.fillWidth: true
            implicitHeight: 36
            radius: 10
            color: Theme.surface
            border.color: search.activeFocus ? Theme.accent : Theme.border
            RowLayout {
                anchors.fill: parent
                anchors.leftMargin: 10
                anchors.rightMargin: 6
                Icon { path: Icons.search; size: 16; color: Theme.textMuted }
                TextField {
                    id: search
                    objectName: "searchField"
                    Layout.fillWidth: true
                    placeholderText: qsTr("Search chats (Ctrl+K)")
                    Accessible.name: qsTr("Search chats")
                    placeholderTextColor: Theme.textFaint
                    color: Theme.text
                    background: null
                    font.pointSize: Theme.fontSize
                    onTextChanged: sidebar.chat.conversations.searchText = text
                    // Escape clears the search, then leaves the field.
                    Keys.onEscapePressed: {
                        if (text.length > 0) clear()
                        else sidebar.searchLeft()
                    }
                }
                IconButton {
                    visible: search.text.length > 0
                    tip: qsTr("Clear the search")
                    iconPath: Icons.close; iconSize: 14; implicitWidth: 24; implicitHeight: 24
                    onClicked: search.clear()
                }
            }
        }

        ListView {
            id: conversations
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 2
            model: sidebar.chat ? sidebar.chat.conversations : null
            section.property: "period"
            section.delegate: Label {
                objectName: "conversationSection"
                required property string section
                text: sidebar.periodLabel(section)
                color: Theme.textFaint
                font.pointSize: Theme.small
                font.weight: Font.DemiBold
                leftPadding: 10
                topPadding: 12
                bottomPadding: 4
            }
            ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the chats") }

            delegate: ItemDelegate {
                id: row
                required property int index
                required property string conversationId
                required property string title
                property bool renaming: false
                readonly property bool current: sidebar.chat && sidebar.chat.currentConversationId === conversationId
                objectName: "conversation_" + index
                text: title // what a screen reader says; the row draws it itself
                focusPolicy: Qt.TabFocus // an ItemDelegate takes none by default: Tab would skip it
                Accessible.role: Accessible.ListItem
                Accessible.name: title
                Accessible.onPressAction: clicked() // opens the chat
                Accessible.description: qsTr("F2 renames the chat, Delete deletes it")
                width: ListView.view.width
                height: 38
                hoverEnabled: true
                function startRenaming() {
                    row.renaming = true
                    renameField.text = row.title
                    renameField.forceActiveFocus()
                    renameField.selectAll()
                }
                onClicked: { sidebar.chat.selectConversation(conversationId); sidebar.navigate("chat") }
                // The keyboard's way to the row's hover-only buttons, which Tab passes by.
                Keys.onPressed: function (event) {
                    if (row.renaming) return
                    if (event.key === Qt.Key_F2) {
                        event.accepted = true
                        row.startRenaming()
                    } else if (event.key === Qt.Key_Delete) {
                        event.accepted = true
                        confirmDelete.openFor(row.conversationId, row.title)
                    }
                }
                background: Rectangle {
                    radius: 9
                    color: row.current ? Theme.selected : (row.hovered ? Theme.hover : "transparent")
                    border.width: row.visualFocus ? 2 : 0 // reached with Tab
                    border.color: Theme.accent
                }
                contentItem: RowLayout {
                    spacing: 2
                    Label {
                        visible: !row.renaming
                        text: row.title
                        elide: Text.ElideRight
                        color: Theme.text
                        font.pointSize: Theme.fontSize
                        Layout.fillWidth: true
                        Layout.leftMargin: 2
                    }
                    TextField {
                        id: renameField
                        objectName: "renameField"
                        visible: row.renaming
                        Layout.fillWidth: true
                        text: row.title
                        color: Theme.text
                        font.pointSize: Theme.fontSize
                        Accessible.name: qsTr("New name of the chat")
                        background: Rectangle { radius: 6; color: Theme.surface; border.color: Theme.accent }
                        onAccepted: { sidebar.chat.renameConversation(row.conversationId, text); row.renaming = false; row.forceActiveFocus() }
                        onActiveFocusChanged: if (!activeFocus) row.renaming = false
                        Keys.onEscapePressed: { row.renaming = false; row.forceActiveFocus() }
                    }
                    // The mouse's: the keyboard has F2 and Delete on the row.
                    IconButton {
                        objectName: "renameChatButton"
                        visible: (row.hovered || row.current) && !row.renaming
                        focusPolicy: Qt.NoFocus
                        iconPath: Icons.edit; tip: qsTr("Rename"); iconSize: 14; implicitWidth: 26; implicitHeight: 26
                        onClicked: row.startRenaming()
                    }
                    IconButton {
                        objectName: "deleteChatButton"
                        visible: (row.hovered || row.current) && !row.renaming
                        focusPolicy: Qt.NoFocus
                        iconPath: Icons.trash; tip: qsTr("Delete"); iconSize: 14; implicitWidth: 26; implicitHeight: 26
                        hoverColor: Theme.dangerSoft
                        onClicked: confirmDelete.openFor(row.conversationId, row.title)
                    }
                }
            }

            Label {
                objectName: "conversationListEmpty"
                anchors.centerIn: parent
                visible: conversations.count === 0
                text: search.text.length > 0 ? qsTr("No chats match") : qsTr("Your chats appear here")
                color: Theme.textFaint
                font.pointSize: Theme.small
            }
        }

        Rectangle { Layout.fillWidth: true; height: 1; color: Theme.border }

        Repeater {
            model: [
                { page: "models", label: qsTr("Models"), iconPath: Icons.model, tip: qsTr("Models (Ctrl+O opens a file)") },
                { page: "metrics", label: qsTr("Engine metrics"), iconPath: Icons.metrics, tip: "" },
                { page: "settings", label: qsTr("Settings"), iconPath: Icons.settings, tip: qsTr("Settings (Ctrl+,)") }
            ]
            delegate: ItemDelegate {
                id: nav
                required property var modelData
                objectName: "nav_" + modelData.page
                text: modelData.label // the accessible name; the row draws it itself
                focusPolicy: Qt.TabFocus
                Accessible.role: Accessible.Button
                Accessible.name: modelData.label
                Accessible.onPressAction: clicked() // opens the page
                ToolTip.visible: hovered && modelData.tip.length > 0
                ToolTip.delay: 600
                ToolTip.text: modelData.tip
                Layout.fillWidth: true
                height: 38
                hoverEnabled: true
                onClicked: sidebar.navigate(modelData.page)
                background: Rectangle {
                    radius: 9
                    color: sidebar.page === nav.modelData.page ? Theme.selected : (nav.hovered ? Theme.hover : "transparent")
                    border.width: nav.visualFocus ? 2 : 0 // reached with Tab
                    border.color: Theme.accent
                }
                contentItem: RowLayout {
                    spacing: 10
                    Icon { path: nav.modelData.iconPath; size: 18; color: Theme.textMuted }
                    Label { text: nav.modelData.label; color: Theme.text; font.pointSize: Theme.fontSize; Layout.fillWidth: true }
                }
            }
        }
    }

    // Drawn with plain rectangles: Material's dialog background is a layer effect
    // (ElevationEffect), which the software renderer does not draw, and its header and buttons
    // take Material's colours, not the theme's.
    Dialog {
        id: confirmDelete
        objectName: "deleteChatDialog"
        property string conversationId
        property string conversationTitle
        function openFor(id, title) { conversationId = id; conversationTitle = title; open() }
        parent: Overlay.overlay
        anchors.centerIn: parent
        // Fixed widths: sized from its content, the wrapped text's size fed back into itself.
        width: 400
        modal: true
        dim: true
        focus: true
        padding: 24
        topPadding: 12
        bottomPadding: 16
        title: qsTr("Delete chat?")
        onOpened: cancelButton.forceActiveFocus(Qt.PopupFocusReason)
        onAccepted: sidebar.chat.deleteConversation(conversationId)

        // Opaque, with a soft edge of translucent rectangles beneath it for a shadow.
        background: Rectangle {
            objectName: "deleteChatBackground"
            color: Theme.surface
            radius: Theme.radius
            border.color: Theme.border
            Repeater {
                model: 3
                Rectangle {
                    required property int index
                    z: -1
                    anchors.fill: parent
                    anchors.margins: -2 * (index + 1)
                    anchors.topMargin: -(index + 1)
                    radius: Theme.radius + 2 * (index + 1)
                    color: Qt.rgba(0, 0, 0, 0.12 - 0.03 * index)
                }
            }
        }
        Overlay.modal: Rectangle {
            objectName: "deleteChatDim"
            color: Theme.dark ? Qt.rgba(0, 0, 0, 0.6) : Qt.rgba(0, 0, 0, 0.4)
        }
        header: Label {
            objectName: "deleteChatTitle"
            text: confirmDelete.title
            elide: Text.ElideRight
            leftPadding: 24
            rightPadding: 24
            topPadding: 22
            color: Theme.text
            font.pointSize: Theme.large
            font.weight: Font.DemiBold
        }
        footer: Item {
            implicitHeight: buttons.implicitHeight + 20
            RowLayout {
                id: buttons
                anchors.right: parent.right
                anchors.rightMargin: 24
                anchors.top: parent.top
                spacing: 8
                PillButton {
                    id: cancelButton
                    objectName: "deleteChatCancel"
                    text: qsTr("Cancel")
                    onClicked: confirmDelete.reject()
                    Keys.onReturnPressed: confirmDelete.reject()
                    Keys.onEnterPressed: confirmDelete.reject()
                }
                PillButton {
                    objectName: "deleteChatConfirm"
                    text: qsTr("Delete")
                    danger: true
                    onClicked: confirmDelete.accept()
                    Keys.onReturnPressed: confirmDelete.accept()
                    Keys.onEnterPressed: confirmDelete.accept()
                }
            }
        }
        Label {
            objectName: "deleteChatText"
            text: qsTr("“%1” and all its messages will be deleted.").arg(confirmDelete.conversationTitle)
            color: Theme.textMuted
            font.pointSize: Theme.fontSize
            wrapMode: Text.Wrap
            width: 352
        }
    }
}
