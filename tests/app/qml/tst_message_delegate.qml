import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// One message of the chat, made on its own with its model roles: the user's in a bubble on the
// right with an edit that resends; a reply under "Hearth" with its Markdown, its code blocks
// (copied by their button), its stats and how it ended, a plain growing text and dots while it
// streams; the actions emit what they name; and the notice after a context shift says how large
// the context is and leads to the fix.
Item {
    id: root
    width: 720
    height: 700

    Component {
        id: delegateComponent
        MessageDelegate {
            width: root.width
            index: 0
            messageId: "m1"
            author: "assistant"
            settledContent: ""
            hasContent: false
            messageState: "complete"
            streaming: false
            stats: ""
            blocks: null
            outOfView: false
            contextBoundary: false
            version: 1
            versionCount: 1
            toolCalls: []
            toolResult: ({})
            images: []
        }
    }
    ListModel { id: noBlocks }

    TestCase {
        name: "MessageDelegate"
        when: windowShown

        // `content` stands for the two roles a finished message's text gives.
        function make(properties) {
            if (properties.content !== undefined) {
                properties.settledContent = properties.content
                properties.hasContent = properties.content.length > 0
                delete properties.content
            }
            const message = createTemporaryObject(delegateComponent, root, properties)
            verify(message)
            waitForRendering(message)
            return message
        }
        // A reply's blocks as a MarkdownBlockModel gives them: kind, text and language.
        function blocks(list) {
            const model = Qt.createQmlObject("import QtQuick; ListModel {}", root)
            for (const b of list) model.append({ kind: b[0], blockText: b[1], settledText: b[1], language: b[2] || "" })
            return model
        }
        function collect(item, name, out) {
            if (!item.visible) return out
            if (item.objectName === name) out.push(item)
            for (let i = 0; i < item.children.length; ++i) collect(item.children[i], name, out)
            return out
        }
        function shown(item, name) { return collect(item, name, []) }
        function click(target) { mouseClick(target, target.width / 2, target.height / 2) }

        function test_aReplyUnderHearthWithItsStats() {
            const message = make({ content: "Hello **world**", isLast: true, stats: "12 tokens · 80 tok/s",
                                   blocks: blocks([["text", "Hello **world**"]]) })
            compare(shown(message, "replyAuthor")[0].text, "Hearth")
            const texts = shown(message, "assistantText")
            compare(texts.length, 1)
            verify(texts[0].getText(0, texts[0].length).indexOf("Hello world") >= 0, "the Markdown is rendered")
            compare(shown(message, "replyStats")[0].text, "12 tokens · 80 tok/s")
            compare(shown(message, "userBubble").length, 0)
            compare(shown(message, "replyEnding").length, 0)
            // The last reply shows its actions without hovering.
            compare(findChild(message, "messageActions").opacity, 1)
            verify(findChild(message, "regenerateButton").visible)
            verify(!findChild(message, "editMessageButton").visible)
        }

        function test_theActionsEmitWhatTheyName() {
            const message = make({ content: "A reply", isLast: true, blocks: blocks([["text", "A reply"]]) })
            const copySpy = signalSpy.createObject(root, { target: message, signalName: "copyRequested" })
            const regenerateSpy = signalSpy.createObject(root, { target: message, signalName: "regenerateRequested" })
            click(findChild(message, "copyMessageButton"))
            compare(copySpy.count, 1)
            compare(copySpy.signalArguments[0][0], "A reply")
            click(findChild(message, "regenerateButton"))
            compare(regenerateSpy.count, 1)
            // Not while a reply is being generated.
            message.busy = true
            verify(!findChild(message, "regenerateButton").enabled)
            // Only the last reply can be regenerated.
            message.busy = false
            message.isLast = false
            verify(!findChild(message, "regenerateButton").visible)
        }

        // "‹ 2 / 3 ›" only where a message has versions; each button asks for its neighbour and
        // is off at its end and while a reply is written.
        function test_versionsAreSwitchedByTheirButtons() {
            const single = make({ content: "Only one", blocks: blocks([["text", "Only one"]]) })
            verify(findChild(single, "versionSwitcher") === null)
            const message = make({ content: "Second", version: 2, versionCount: 3,
                                   blocks: blocks([["text", "Second"]]) })
            verify(findChild(message, "versionSwitcher").visible)
            compare(findChild(message, "versionLabel").text, "2 / 3")
            const previous = findChild(message, "previousVersionButton")
            const next = findChild(message, "nextVersionButton")
            verify(previous.Accessible.name.length > 0 && next.Accessible.name.length > 0)
            const spy = signalSpy.createObject(root, { target: message, signalName: "versionRequested" })
            click(previous)
            click(next)
            compare(spy.count, 2)
            compare(spy.signalArguments[0][0], "m1")
            compare(spy.signalArguments[0][1], -1)
            compare(spy.signalArguments[1][1], 1)
            message.version = 3
            verify(!next.enabled)
            verify(previous.enabled)
            message.version = 1
            verify(!previous.enabled)
            message.busy = true
            verify(!next.enabled)
        }

        function test_codeBlocksAreShownAndCopied() {
            const code = "int main() {\n    return 0;\n}"
            const message = make({ content: "See:\n\n```cpp\n" + code + "\n```\n\nDone.",
                                   blocks: blocks([["text", "See:"], ["code", code, "cpp"], ["text", "Done."]]) })
            compare(shown(message, "assistantText").length, 2)
            const block = shown(message, "codeBlock")
            compare(block.length, 1)
            compare(findChild(block[0], "codeText").text, code)
            compare(findChild(block[0], "codeLanguage").text, "cpp")
            // Prose, code, prose, top to bottom.
            const y = (item) => item.mapToItem(message, 0, 0).y
            const prose = shown(message, "assistantText")
            verify(y(prose[0]) < y(block[0]) && y(block[0]) < y(prose[1]))
            const copySpy = signalSpy.createObject(root, { target: message, signalName: "copyRequested" })
            click(findChild(block[0], "codeCopyButton"))
            compare(copySpy.count, 1)
            compare(copySpy.signalArguments[0][0], code)
        }

        function test_whileStreaming() {
            const message = make({ streaming: true, messageState: "streaming", isLast: true, blocks: noBlocks })
            // Nothing yet: the three dots.
            verify(collect(message, "", []).some(i => i.width === 8 && i.height === 8 && i.radius === 4))
            compare(findChild(message, "messageActions").opacity, 0)
            verify(!findChild(message, "copyMessageButton").enabled) // nothing settled to copy yet
            // The growing block is plain text, not Markdown.
            message.hasContent = true // the first piece; the settled content stays empty
            message.blocks = blocks([["text", "Once upon **a"]])
            const growing = shown(message, "assistantText")
            compare(growing.length, 1)
            compare(growing[0].text, "Once upon **a")
            compare(growing[0].textFormat, Text.PlainText)
            // It follows the block's text as it grows (written into it, not through a property).
            message.blocks.setProperty(0, "blockText", "Once upon **a time")
            compare(growing[0].text, "Once upon **a time")
            verify(!collect(message, "", []).some(i => i.width === 8 && i.height === 8 && i.radius === 4 && i.visible))
        }

        function test_howAReplyEnded() {
            const stopped = make({ content: "Half", messageState: "stopped", blocks: blocks([["text", "Half"]]) })
            compare(shown(stopped, "replyEnding")[0].text, "Stopped")
            const failed = make({ content: "", messageState: "failed", stats: "the model ran out of memory",
                                  blocks: noBlocks })
            compare(shown(failed, "replyEnding")[0].text, "Failed: the model ran out of memory")
            compare(shown(failed, "replyStats").length, 0) // the reason is not repeated as stats
        }

        function test_theUsersMessageInABubbleThatEdits() {
            const message = make({ author: "user", messageId: "u7", content: "How far is the moon?" })
            const bubble = shown(message, "userBubble")
            compare(bubble.length, 1)
            compare(findChild(message, "userText").text, "How far is the moon?")
            compare(shown(message, "replyAuthor").length, 0)
            // On the right, inside the message.
            const r = bubble[0].mapToItem(message, 0, 0, bubble[0].width, bubble[0].height)
            verify(r.x > message.width / 2 && r.x + r.width <= message.width, r.x + ".." + (r.x + r.width))
            const editSpy = signalSpy.createObject(root, { target: message, signalName: "editRequested" })
            message.isLast = true
            mouseMove(message, r.x + r.width / 2, r.y + r.height / 2) // the actions show on hover
            tryCompare(findChild(message, "messageActions"), "opacity", 1)
            click(findChild(message, "editMessageButton"))
            const editor = findChild(message, "messageEditor")
            verify(editor.visible)
            compare(editor.text, "How far is the moon?")
            editor.text = "How far is Mars?"
            click(findChild(message, "editSendButton"))
            compare(editSpy.count, 1)
            compare(editSpy.signalArguments[0][0], "u7")
            compare(editSpy.signalArguments[0][1], "How far is Mars?")
            verify(!editor.visible)
        }

        // A message's images: thumbnails above its text, on the right for the user's, each opening
        // large on a click; they stay while the text is edited, and make an empty text sendable.
        function test_aMessagesImagesAboveItsText() {
            const images = [{ sha256: testImageSha256, name: "halves.png", bytes: 120 },
                            { sha256: testImageSha256, name: "again.png", bytes: 120 }]
            const message = make({ author: "user", messageId: "u9", content: "What is this?", images: images, isLast: true })
            const thumbnails = shown(message, "messageImage")
            compare(thumbnails.length, 2)
            for (const thumbnail of thumbnails)
                tryCompare(findChild(thumbnail, "thumbnailImage"), "status", Image.Ready, 5000)
            compare(thumbnails[0].Accessible.name, "Image halves.png")
            const bubble = shown(message, "userBubble")[0]
            const t = thumbnails[0].mapToItem(message, 0, 0, thumbnails[0].width, thumbnails[0].height)
            const b = bubble.mapToItem(message, 0, 0, bubble.width, bubble.height)
            verify(t.y + t.height <= b.y, "above the text")
            verify(t.x > message.width / 2 && t.x + t.width <= message.width, "on the right")
            const openedSpy = signalSpy.createObject(root, { target: message, signalName: "imageOpened" })
            click(thumbnails[1])
            compare(openedSpy.count, 1)
            compare(openedSpy.signalArguments[0][0], testImageSha256)
            compare(openedSpy.signalArguments[0][1], "again.png")

            const editSpy = signalSpy.createObject(root, { target: message, signalName: "editRequested" })
            mouseMove(bubble, bubble.width / 2, bubble.height / 2)
            tryCompare(findChild(message, "messageActions"), "opacity", 1)
            click(findChild(message, "editMessageButton"))
            compare(shown(message, "messageImage").length, 2) // kept with the edit
            findChild(message, "messageEditor").text = ""
            verify(findChild(message, "editSendButton").enabled)
            click(findChild(message, "editSendButton"))
            compare(editSpy.count, 1)
            compare(editSpy.signalArguments[0][1], "")
        }

        function test_imagesAloneHaveNoBubble() {
            const message = make({ author: "user", content: "", images: [{ sha256: testImageSha256, name: "halves.png", bytes: 120 }] })
            compare(shown(message, "messageImage").length, 1)
            compare(shown(message, "userBubble").length, 0)
            const text = make({ author: "user", content: "Only words" })
            compare(shown(text, "messageImage").length, 0)
            verify(!findChild(text, "messageImages").visible)
        }

        // The edit box takes keys as the composer does: Enter sends, Shift+Enter starts a new line,
        // Escape cancels.
        // Copying a whole message says so: the button shows a tick and "Copied" for a moment.
        function test_copyingAMessageSaysSo() {
            const message = make({ content: "A reply", isLast: true, blocks: blocks([["text", "A reply"]]) })
            const copy = findChild(message, "copyMessageButton")
            compare(copy.tip, "Copy")
            click(copy)
            compare(copy.tip, "Copied")
            compare(copy.iconPath, Icons.check)
            tryCompare(copy, "tip", "Copy", 5000)
            compare(copy.iconPath, Icons.copy)
        }

        function test_enterSendsTheEditedMessage() {
            const message = make({ author: "user", messageId: "u8", content: "Hello", isLast: true })
            const editSpy = signalSpy.createObject(root, { target: message, signalName: "editRequested" })
            const bubble = findChild(message, "userBubble")
            mouseMove(bubble, bubble.width / 2, bubble.height / 2)
            tryCompare(findChild(message, "messageActions"), "opacity", 1)
            click(findChild(message, "editMessageButton"))
            const editor = findChild(message, "messageEditor")
            verify(editor.activeFocus)
            editor.cursorPosition = editor.length
            keyClick(Qt.Key_Return, Qt.ShiftModifier)
            keyClick(Qt.Key_A)
            compare(editor.text, "Hello\na")
            compare(editSpy.count, 0)
            keyClick(Qt.Key_Return)
            compare(editSpy.count, 1)
            compare(editSpy.signalArguments[0][1], "Hello\na")
            // The edit box exists only while the message is edited.
            tryVerify(function () { return findChild(message, "messageEditor") === null })

            click(findChild(message, "editMessageButton"))
            const again = findChild(message, "messageEditor")
            verify(again.activeFocus)
            compare(again.text, "Hello") // the message's text, not what was typed before
            keyClick(Qt.Key_Escape)
            tryVerify(function () { return findChild(message, "messageEditor") === null })
            compare(editSpy.count, 1)
        }

        function test_theContextNoticeSaysWhyAndLeadsToTheFix() {
            const message = make({ content: "Reply", contextBoundary: true, contextLength: 64,
                                   trainedContextLength: 128, systemPromptSet: true,
                                   blocks: blocks([["text", "Reply"]]) })
            compare(findChild(message, "contextBoundaryLabel").text, "Earlier messages are no longer in the model's view")
            const why = findChild(message, "contextExplanationText").text
            verify(why.indexOf("64 tokens") >= 0, why)
            verify(why.indexOf("system prompt") >= 0, why)
            const fix = findChild(message, "contextFixButton")
            compare(fix.text, "Set a larger context…")
            const settingsSpy = signalSpy.createObject(root, { target: message, signalName: "contextSettingsRequested" })
            click(fix)
            compare(settingsSpy.count, 1)
            // At the model's own limit: another model.
            message.contextLength = 128
            message.systemPromptSet = false
            const limit = findChild(message, "contextExplanationText").text
            verify(limit.indexOf("trained for 128 tokens") >= 0, limit)
            verify(limit.indexOf("system prompt") < 0, limit)
            compare(fix.text, "Choose another model…")
            const modelSpy = signalSpy.createObject(root, { target: message, signalName: "chooseModelRequested" })
            click(fix)
            compare(modelSpy.count, 1)
            // One token is one token (the English plural forms are installed, as in the app).
            message.contextLength = 1
            const one = findChild(message, "contextExplanationText").text
            verify(one.indexOf("sees 1 token at a time") >= 0, one)
            // Without a context shift there is no notice.
            message.contextBoundary = false
            tryVerify(function () { return findChild(message, "contextBoundary") === null })
            verify(findChild(message, "contextExplanation") === null)
        }

        // A reply's call shows its server, tool and arguments; while it waits, its buttons answer it.
        function test_aToolCallWaitsForTheUsersAnswer() {
            const call = { id: "call_1", server: "files", tool: "read_file", function: "read_file",
                           arguments: "{\n    \"path\": \"/tmp/a.txt\"\n}", status: "pending" }
            const message = make({ messageId: "r1", isLast: true, toolCalls: [call] })
            compare(shown(message, "toolCallCard").length, 1)
            compare(findChild(message, "toolCallTitle").text, "files \u203a read_file")
            verify(findChild(message, "toolCallArguments").text.indexOf("/tmp/a.txt") >= 0)
            const spy = signalSpy.createObject(root, { target: message, signalName: "toolCallAnswered" })
            click(findChild(message, "allowOnceButton"))
            click(findChild(message, "alwaysAllowButton"))
            click(findChild(message, "denyButton"))
            compare(spy.count, 3)
            compare(spy.signalArguments[0][0], "r1")
            compare(spy.signalArguments[0][1], "call_1")
            compare(spy.signalArguments[0][2], "once")
            compare(spy.signalArguments[1][2], "always")
            compare(spy.signalArguments[2][2], "deny")
            // Answered: no buttons, its state instead.
            call.status = "done"
            message.toolCalls = [call]
            compare(shown(message, "allowOnceButton").length, 0)
            compare(findChild(message, "toolCallStatus").text, "Done")
        }

        // A tool's result: its first line until opened; an error says so.
        function test_aToolResultIsCollapsedUntilOpened() {
            const message = make({ author: "tool", content: "first line\nsecond line",
                                   toolResult: { server: "files", tool: "read_file", isError: false, truncated: true } })
            compare(shown(message, "replyAuthor").length, 0)
            compare(shown(message, "messageActions").length, 0)
            const text = findChild(message, "toolResultText")
            compare(text.text, "first line")
            verify(findChild(message, "toolResultTitle").text.indexOf("(cut to fit)") >= 0)
            click(findChild(message, "toolResultToggle"))
            compare(text.text, "first line\nsecond line")
            const failed = make({ author: "tool", content: "MCP server \u201cfiles\u201d stopped",
                                  toolResult: { server: "files", tool: "read_file", isError: true, truncated: false } })
            verify(findChild(failed, "toolResultTitle").text.indexOf("Error from files") === 0)
        }

        function test_nothingIsWiderThanANarrowMessage() {
            const message = make({ width: 300, content: "word ".repeat(80), stats: "48 tokens · 212 tok/s · first token 35 ms",
                                   isLast: true, contextBoundary: true, contextLength: 64, trainedContextLength: 128,
                                   blocks: blocks([["text", "word ".repeat(80)], ["code", "x".repeat(200), "text"]]) })
            const inside = collect(message, "", []).concat(shown(message, "assistantText"), shown(message, "codeBlock"))
            for (const item of inside) {
                const r = item.mapToItem(message, 0, 0, item.width, item.height)
                verify(r.x >= -0.5 && r.x + r.width <= message.width + 0.5,
                       "%1 spans %2..%3 in a message 300 wide".arg(item).arg(r.x).arg(r.x + r.width))
            }
        }
    }

    Component { id: signalSpy; SignalSpy {} }
}
