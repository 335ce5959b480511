import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// The sidebar over a chat that records what it is asked: the conversations under their periods,
// the current one highlighted; a click opens a conversation, New chat starts one, the search
// goes to the list model, rename and delete (after asking) reach the chat, and the three pages
// below the list navigate.
Item {
    id: root
    width: 272
    height: 700

    QtObject {
        id: fakeChat
        property string currentConversationId: ""
        property var calls: []
        property ListModel conversations: ListModel {
            property string searchText: ""
            ListElement { conversationId: "a"; title: "Trip to Rome"; period: "Today" }
            ListElement { conversationId: "b"; title: "Sourdough starter"; period: "Today" }
            ListElement { conversationId: "c"; title: "Tax questions"; period: "Yesterday" }
            ListElement { conversationId: "d"; title: "Old poem"; period: "Older" }
        }
        function newConversation() { calls.push("new") }
        function selectConversation(id) { calls.push("select " + id) }
        function renameConversation(id, title) { calls.push("rename " + id + " " + title) }
        function deleteConversation(id) { calls.push("delete " + id) }
    }

    Sidebar {
        id: sidebar
        anchors.fill: parent
        chat: fakeChat
    }
    SignalSpy { id: navigateSpy; target: sidebar; signalName: "navigate" }
    Component { id: signalSpy; SignalSpy {} }
    Component { id: sidebarComponent; Sidebar { chat: fakeChat } }

    TestCase {
        name: "Sidebar"
        when: windowShown

        function collect(item, test, out) {
            if (!item || !item.visible) return out
            if (test(item)) out.push(item)
            for (let i = 0; i < item.children.length; ++i) collect(item.children[i], test, out)
            return out
        }
        function row(index) { return findChild(sidebar, "conversation_" + index) }
        function button(inside, tip) { return collect(inside, i => i.tip === tip, [])[0] }
        // A button that has just appeared is placed by its layout's next polish: click it after that.
        function click(item) {
            waitForItemPolished(item.parent)
            mouseClick(item, item.width / 2, item.height / 2)
        }

        function init() {
            const dialog = findChild(sidebar, "deleteChatDialog")
            if (dialog.visible) { dialog.close(); tryVerify(() => !dialog.visible) } // left open by a failure
            fakeChat.calls = []
            fakeChat.currentConversationId = ""
            fakeChat.conversations.searchText = ""
            navigateSpy.clear()
            sidebar.page = "chat"
            mouseMove(root, 1, 1) // over the header: no row is hovered
            findChild(sidebar, "searchField").clear()
            waitForRendering(sidebar)
        }

        function test_conversationsUnderTheirPeriods() {
            const sections = collect(sidebar, i => i.objectName === "conversationSection", [])
            compare(sections.map(s => s.text), ["Today", "Yesterday", "Older"])
            const titles = []
            for (let i = 0; i < 4; ++i) titles.push(row(i).title)
            compare(titles, ["Trip to Rome", "Sourdough starter", "Tax questions", "Old poem"])
            // Each period's header sits above its first conversation and below the one before.
            const y = (item) => item.mapToItem(sidebar, 0, 0).y
            verify(y(sections[0]) < y(row(0)))
            verify(y(row(1)) < y(sections[1]) && y(sections[1]) < y(row(2)))
            verify(y(row(2)) < y(sections[2]) && y(sections[2]) < y(row(3)))
            verify(!findChild(sidebar, "conversationListEmpty").visible)
        }

        function test_theCurrentConversationIsHighlighted() {
            fakeChat.currentConversationId = "c"
            for (let i = 0; i < 4; ++i)
                compare(Qt.colorEqual(row(i).background.color, Theme.selected), i === 2, "row " + i)
            // Its actions show without hovering.
            verify(button(row(2), "Rename").visible && button(row(2), "Delete").visible)
            verify(!button(row(0), "Rename"))
        }

        function test_aClickOpensTheConversation() {
            click(row(1))
            compare(fakeChat.calls, ["select b"])
            compare(navigateSpy.count, 1)
            compare(navigateSpy.signalArguments[0][0], "chat")
        }

        function test_newChat() {
            const newChat = findChild(sidebar, "newChatButton")
            compare(newChat.text, "New chat")
            click(newChat)
            compare(fakeChat.calls, ["new"])
            compare(navigateSpy.signalArguments[0][0], "chat")
        }

        function test_theSearchGoesToTheListModel() {
            const search = findChild(sidebar, "searchField")
            search.forceActiveFocus()
            keyClick("r"); keyClick("o")
            compare(fakeChat.conversations.searchText, "ro")
            const clear = button(sidebar, "Clear the search")
            verify(clear.visible)
            click(clear)
            compare(search.text, "")
            compare(fakeChat.conversations.searchText, "")
        }

        // Escape clears the search; a second one leaves the field for the chat.
        function test_escapeClearsTheSearch() {
            const search = findChild(sidebar, "searchField")
            const leaveSpy = signalSpy.createObject(root, { target: sidebar, signalName: "searchLeft" })
            search.forceActiveFocus()
            keyClick("r"); keyClick("o")
            compare(fakeChat.conversations.searchText, "ro")
            keyClick(Qt.Key_Escape)
            compare(search.text, "")
            compare(fakeChat.conversations.searchText, "")
            verify(search.activeFocus)
            compare(leaveSpy.count, 0)
            keyClick(Qt.Key_Escape)
            compare(leaveSpy.count, 1)
        }

        function test_anEmptyListSaysWhy() {
            const saved = []
            for (let i = 0; i < fakeChat.conversations.count; ++i) saved.push(fakeChat.conversations.get(i))
            const kept = saved.map(c => ({ conversationId: c.conversationId, title: c.title, period: c.period }))
            fakeChat.conversations.clear()
            const empty = findChild(sidebar, "conversationListEmpty")
            tryVerify(() => empty.visible, 10000, "no word for an empty list")
            compare(empty.text, "Your chats appear here")
            findChild(sidebar, "searchField").text = "zebra"
            compare(empty.text, "No chats match")
            for (const c of kept) fakeChat.conversations.append(c)
            tryVerify(() => !empty.visible)
            compare(findChild(sidebar, "conversationList").count, 4)
        }

        function test_renameReachesTheChat() {
            fakeChat.currentConversationId = "a"
            click(button(row(0), "Rename"))
            const field = findChild(row(0), "renameField")
            verify(field.visible && field.activeFocus)
            compare(field.selectedText, "Trip to Rome")
            keyClick("V"); keyClick("e"); keyClick("n"); keyClick("i"); keyClick("c"); keyClick("e")
            keyClick(Qt.Key_Return)
            compare(fakeChat.calls, ["rename a Venice"])
            verify(!field.visible)
        }

        function test_deleteAsksFirst() {
            fakeChat.currentConversationId = "b"
            click(button(row(1), "Delete"))
            const dialog = findChild(sidebar, "deleteChatDialog")
            tryVerify(() => dialog.opened)
            compare(findChild(dialog, "deleteChatText").text, "“Sourdough starter” and all its messages will be deleted.")
            compare(fakeChat.calls, []) // nothing deleted before the answer
            dialog.reject()
            tryVerify(() => !dialog.visible)
            compare(fakeChat.calls, [])
            click(button(row(1), "Delete"))
            tryVerify(() => dialog.opened)
            dialog.accept()
            compare(fakeChat.calls, ["delete b"])
        }

        function test_pagesBelowTheList() {
            const pages = [["models", "Models"], ["metrics", "Engine metrics"], ["settings", "Settings"]]
            for (const [page, label] of pages) {
                const nav = findChild(sidebar, "nav_" + page)
                compare(nav.text, label)
                click(nav)
                compare(navigateSpy.signalArguments[navigateSpy.count - 1][0], page)
            }
            sidebar.page = "settings"
            verify(Qt.colorEqual(findChild(sidebar, "nav_settings").background.color, Theme.selected))
            verify(!Qt.colorEqual(findChild(sidebar, "nav_models").background.color, Theme.selected))
        }

        // The delete dialog is Hearth's own: an opaque panel in the theme's colour over a dim
        // (Material's background is a layer effect the software renderer does not draw), its
        // title, text and Cancel and Delete buttons inside it; Esc cancels, Delete deletes.
        function test_deleteDialogIsDrawnInTheTheme() {
            fakeChat.currentConversationId = "a"
            click(button(row(0), "Delete"))
            const dialog = findChild(sidebar, "deleteChatDialog")
            tryVerify(() => dialog.opened)
            const background = dialog.background
            compare(background.objectName, "deleteChatBackground")
            verify(Qt.colorEqual(background.color, Theme.surface))
            compare(background.color.a, 1)
            verify(dialog.modal && dialog.dim)
            const title = dialog.header
            compare(title.objectName, "deleteChatTitle")
            compare(title.text, "Delete chat?")
            verify(Qt.colorEqual(title.color, Theme.text))
            const cancel = findChild(dialog.footer, "deleteChatCancel")
            const confirm = findChild(dialog.footer, "deleteChatConfirm")
            compare(cancel.text, "Cancel")
            compare(confirm.text, "Delete")
            verify(cancel.activeFocus)
            keyClick(Qt.Key_Escape)
            tryVerify(() => !dialog.visible)
            compare(fakeChat.calls, [])
            click(button(row(0), "Delete"))
            tryVerify(() => dialog.opened)
            click(confirm)
            tryVerify(() => !dialog.visible)
            compare(fakeChat.calls, ["delete a"])
        }

        // No binding loop (a dialog sized from its wrapped text printed one from this file):
        // a sidebar made inside the test, whose warnings fail it, with the dialog
        // opened on a short and a long title. The text wraps inside the dialog's fixed width.
        function test_noBindingLoopAndTheTextWraps() {
            const fresh = createTemporaryObject(sidebarComponent, root, { width: 272, height: 700 })
            verify(fresh !== null)
            const dialog = findChild(fresh, "deleteChatDialog")
            const text = findChild(dialog, "deleteChatText")
            for (const title of ["A", "A very long title that a user typed ".repeat(6)]) {
                dialog.openFor("x", title)
                tryVerify(() => dialog.opened)
                waitForRendering(dialog.contentItem)
                compare(dialog.width, 400)
                verify(text.width <= dialog.availableWidth, text.width + " > " + dialog.availableWidth)
                verify(text.contentWidth <= text.width + 0.5)
                dialog.close()
                tryVerify(() => !dialog.visible)
            }
        }
    }
}
