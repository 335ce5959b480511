import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// The chat view over a chat that records what it is asked. Empty, it welcomes (with the model's
// name) or points to a model (and, on the first start, the demo); with a conversation of 12 turns
// (a real MessageListModel) it shows every message, follows the end, offers the way back down
// only when scrolled up, and the composer sends through the chat.
Item {
    id: root
    width: 720
    height: 560

    QtObject {
        id: fakeChat
        property var messages: null
        property bool generating: false
        property bool canSend: true
        property var sent: []
        function send(text) { sent.push(text); return true }
        function stop() {}
        function copyText(text) {}
        function regenerate() {}
        function editAndResend(id, text) {}
    }

    ChatView {
        id: view
        anchors.fill: parent
        chat: fakeChat
    }
    SignalSpy { id: modelsSpy; target: view; signalName: "openModelsRequested" }
    SignalSpy { id: demoSpy; target: view; signalName: "demoRequested" }

    TestCase {
        name: "ChatView"
        when: windowShown

        function item(name) { return findChild(view, name) }
        function click(target) { mouseClick(target, target.width / 2, target.height / 2) }
        function list() { return item("messageList") }
        // The last message's end is in the view (positionViewAtEnd leaves out the list's bottom
        // margin, so atYEnd is not the test).
        function endShown() {
            const l = list()
            const last = l.itemAtIndex(l.count - 1)
            return last !== null && last.y + last.height <= l.contentY + l.height + 1 && last.y + last.height > l.contentY
        }

        function init() {
            fakeChat.messages = null
            fakeChat.sent = []
            view.modelLoaded = false
            view.modelName = ""
            view.offerDemo = false
            modelsSpy.clear()
            demoSpy.clear()
            waitForRendering(view)
        }

        function test_withoutAModelItPointsToOne() {
            verify(item("welcome").visible)
            compare(item("welcomeTitle").text, "No model loaded")
            compare(item("welcomeText").text, "Pick a model, or drop a .gguf file anywhere on this window.")
            const choose = item("chatChooseModelButton")
            verify(choose.visible)
            compare(choose.text, "Choose a model")
            verify(!item("chatTryDemoButton").visible)
            compare(item("composer").placeholder, "Load a model to start chatting")
            click(choose)
            compare(modelsSpy.count, 1)
        }

        function test_theFirstStartOffersTheDemo() {
            view.offerDemo = true
            const demo = item("chatTryDemoButton")
            verify(demo.visible)
            verify(demo.text.indexOf("children's stories") >= 0, demo.text)
            click(demo)
            compare(demoSpy.count, 1)
            view.modelLoaded = true
            verify(!demo.visible)
        }

        function test_withAModelItWelcomes() {
            view.modelLoaded = true
            view.modelName = "stories260K"
            compare(item("welcomeTitle").text, "What's on your mind?")
            compare(item("welcomeText").text, "Chatting with stories260K. Everything runs on this computer; nothing leaves it.")
            verify(!item("chatChooseModelButton").visible)
            compare(item("composer").placeholder, "Message stories260K…")
            compare(item("composerHint").text, "Enter to send · Shift+Enter for a new line")
        }

        function test_theConversationIsShownAndFollowed() {
            view.modelLoaded = true
            fakeChat.messages = testMessages
            compare(list().count, 24)
            verify(!item("welcome").visible)
            tryVerify(endShown, 10000, "the view does not show the end")
            verify(view.followStream)
            verify(!item("scrollToBottomButton").visible)
            // The last reply: its prose, its code block (with its language and a copy button) and stats.
            const last = list().itemAtIndex(23)
            verify(last)
            compare(last.author, "assistant")
            const code = findChild(last, "codeBlock")
            verify(code && code.visible)
            compare(findChild(code, "codeText").text, "for i in range(3):\n    print(i)")
            compare(findChild(code, "codeLanguage").text, "python")
            verify(findChild(code, "codeCopyButton").visible)
            compare(findChild(last, "replyStats").text, "48 tokens · 212 tok/s")
            // The user's question before it, in a bubble on the right.
            const question = list().itemAtIndex(22)
            const bubble = findChild(question, "userBubble")
            verify(bubble.visible)
            compare(findChild(question, "userText").text, "Question 12")
            const r = bubble.mapToItem(question, 0, 0, bubble.width, bubble.height)
            verify(r.x > question.width / 2, "the bubble starts at " + r.x + " of " + question.width)
        }

        function test_theWayBackDownShowsOnlyWhenScrolledUp() {
            fakeChat.messages = testMessages
            tryVerify(endShown)
            const down = item("scrollToBottomButton")
            verify(!down.visible)
            list().positionViewAtBeginning()
            verify(!endShown())
            tryVerify(() => down.visible)
            verify(!view.followStream)
            click(down)
            tryVerify(endShown)
            verify(!down.visible)
            verify(view.followStream)
        }

        function test_theComposerSendsThroughTheChat() {
            view.modelLoaded = true
            fakeChat.messages = testMessages
            view.focusComposer()
            keyClick("H"); keyClick("i")
            keyClick(Qt.Key_Return)
            compare(fakeChat.sent, ["Hi"])
            compare(item("composer").text, "")
        }
    }
}
