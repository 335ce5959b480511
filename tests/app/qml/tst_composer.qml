import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// The composer: Enter sends, Shift+Enter is a new line, blank text is not sent,
// nothing is sent while a reply streams, and the button becomes Stop.
Item {
    id: root
    width: 640
    height: 240

    property bool accept: true
    property var handled: []

    Composer {
        id: composer
        width: 560
        anchors.centerIn: parent
        sendHandler: function (text) { root.handled.push(text); return root.accept }
    }
    SignalSpy { id: stopSpy; target: composer; signalName: "stopRequested" }

    TestCase {
        name: "Composer"
        when: windowShown

        function init() {
            composer.text = ""
            composer.generating = false
            composer.canSend = true
            root.accept = true
            root.handled = []
            stopSpy.clear()
            composer.focusInput()
        }

        function type(text) {
            for (const c of text) keyClick(c)
        }

        function test_enterSends() {
            type("Hi")
            keyClick(Qt.Key_Return)
            compare(root.handled, ["Hi"])
            compare(composer.text, "")
        }

        function test_keypadEnterSends() {
            type("ok")
            keyClick(Qt.Key_Enter)
            compare(root.handled.length, 1)
        }

        function test_shiftEnterMakesANewLine() {
            type("a")
            keyClick(Qt.Key_Return, Qt.ShiftModifier)
            type("b")
            compare(root.handled.length, 0)
            compare(composer.text, "a\nb")
            keyClick(Qt.Key_Return)
            compare(root.handled[0], "a\nb")
        }

        function test_blankIsNotSent() {
            keyClick(Qt.Key_Space)
            keyClick(Qt.Key_Return)
            compare(root.handled.length, 0)
        }

        function test_refusedTextStays() {
            root.accept = false
            type("keep me")
            keyClick(Qt.Key_Return)
            compare(root.handled.length, 1)
            compare(composer.text, "keep me")
        }

        function test_notWhileGenerating() {
            composer.generating = true
            type("later")
            keyClick(Qt.Key_Return)
            compare(root.handled.length, 0)
            compare(composer.text, "later")
            verify(findChild(composer, "sendButton") === null)
        }

        function test_stopButton() {
            composer.generating = true
            const stop = findChild(composer, "stopButton")
            verify(stop !== null)
            verify(stop.enabled)
            mouseClick(stop)
            compare(stopSpy.count, 1)
            compare(root.handled.length, 0)
        }

        function test_sendButton() {
            const send = findChild(composer, "sendButton")
            verify(send !== null)
            verify(!send.enabled) // nothing typed yet
            type("x")
            verify(send.enabled)
            mouseClick(send)
            compare(root.handled.length, 1)
        }

        // The button's tooltip follows its state while the pointer rests on it: once it said
        // "Stop generating" over the Send button.
        function test_tooltipFollowsTheButtonWhileHovered() {
            type("x")
            const button = findChild(composer, "sendButton")
            mouseMove(button, button.width / 2, button.height / 2)
            tryVerify(() => button.ToolTip.toolTip.visible && button.ToolTip.toolTip.text.length > 0, 10000)
            compare(button.ToolTip.toolTip.text, "Send (Enter)")
            composer.generating = true
            tryVerify(() => button.ToolTip.toolTip.visible, 10000)
            compare(button.ToolTip.toolTip.text, "Stop generating (Esc)")
            composer.generating = false
            tryVerify(() => button.ToolTip.toolTip.visible, 10000)
            compare(button.ToolTip.toolTip.text, "Send (Enter)")
            // Changed while the tooltip waits to open: it opens with the new text.
            mouseMove(root, 5, 5)
            tryVerify(() => !button.ToolTip.toolTip.visible, 10000)
            mouseMove(button, button.width / 2, button.height / 2)
            composer.generating = true
            tryVerify(() => button.ToolTip.toolTip.visible, 10000)
            compare(button.ToolTip.toolTip.text, "Stop generating (Esc)")
            composer.generating = false
            mouseMove(root, 5, 5)
            tryVerify(() => !button.ToolTip.toolTip.visible, 10000)
        }

        function test_cannotSendWithoutModel() {
            composer.canSend = false
            type("hello")
            keyClick(Qt.Key_Return)
            compare(root.handled.length, 0)
            verify(!findChild(composer, "sendButton").enabled)
        }
    }
}
