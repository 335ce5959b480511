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

        function test_anEmptyListSaysWhy() {
            const saved = []
            for (let i = 0; i < fakeChat.conversations.count; ++i) saved.push(fakeChat.conversations.get(i))
            const kept = saved.map(c => ({ conversationId: c.conversationId, title: c.title, period: c.period }))
            fakeChat.conversations.clear()
            const empty = findChild(sidebar, "conversationListEmpty")
            tryVerify(() => empty.visible, 1000, "no word for an empty list")
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
    }
}
