import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// The composer: Enter sends, Shift+Enter is a new line, blank text is not sent,
// nothing is sent while a reply streams, and the button becomes Stop. With
// attachments: their thumbnails (drawn by the image provider) each with a remove
// button, images alone can be sent, Ctrl+V offers the clipboard to the
// attachments before the text, and the attach button asks for files.
Item {
    id: root
    width: 640
    height: 480

    property bool accept: true
    property var handled: []

    Composer {
        id: composer
        width: 560
        anchors.centerIn: parent
        sendHandler: function (text) { root.handled.push(text); return root.accept }
    }
    SignalSpy { id: stopSpy; target: composer; signalName: "stopRequested" }

    // ChatController's ImageAttachments as the composer uses it: rows of {sha256, name}, remove(row)
    // (ListModel's own), reading, and the clipboard's paste.
    ListModel {
        id: fakeAttachments
        property bool reading: false
        property bool clipboardHasImage: false
        property int pastes: 0
        function pasteFromClipboard() {
            pastes += 1
            if (!clipboardHasImage) return false
            append({ sha256: testImageSha256, name: "pasted image" })
            return true
        }
    }
    Composer {
        id: imageComposer
        width: 560
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottom: parent.bottom
        attachments: fakeAttachments
        sendHandler: function (text) { root.handled.push(text); return true }
    }
    SignalSpy { id: attachSpy; target: imageComposer; signalName: "attachRequested" }
    SignalSpy { id: openedSpy; target: imageComposer; signalName: "imageOpened" }

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

        function attachTwo() {
            fakeAttachments.append({ sha256: testImageSha256, name: "cat.png" })
            fakeAttachments.append({ sha256: testImageSha256, name: "dog.jpg" })
        }
        function attached() {
            const items = []
            const strip = findChild(imageComposer, "attachmentStrip")
            for (let i = 0; i < strip.children.length; ++i)
                if (strip.children[i].objectName === "attachedImage") items.push(strip.children[i])
            return items
        }
        function cleanupImages() {
            fakeAttachments.clear()
            fakeAttachments.clipboardHasImage = false
            fakeAttachments.pastes = 0
            attachSpy.clear()
            openedSpy.clear()
            imageComposer.text = ""
        }

        function test_attachedImagesAreThumbnailsWithRemoveButtons() {
            cleanupImages()
            const strip = findChild(imageComposer, "attachmentStrip")
            verify(!strip.visible)
            const heightWithout = imageComposer.height
            attachTwo()
            verify(strip.visible)
            tryVerify(() => imageComposer.height > heightWithout + 50, 2000, "the thumbnails have a row of their own")
            let items = attached()
            compare(items.length, 2)
            const picture = findChild(items[0], "thumbnailImage")
            tryCompare(picture, "status", Image.Ready, 5000) // drawn by the image provider
            compare(picture.implicitWidth, 64) // the picture's own size: smaller than asked, not enlarged
            compare(picture.implicitHeight, 48)
            const remove = findChild(items[0], "removeImageButton")
            compare(remove.Accessible.name, "Remove cat.png")
            mouseClick(remove)
            compare(fakeAttachments.count, 1)
            compare(fakeAttachments.get(0).name, "dog.jpg")
            items = attached()
            compare(items.length, 1)
            // A click on a thumbnail asks to show it large.
            const thumbnail = findChild(items[0], "thumbnailImage").parent.parent
            compare(thumbnail.Accessible.name, "Image dog.jpg")
            mouseClick(thumbnail)
            compare(openedSpy.count, 1)
            compare(openedSpy.signalArguments[0][0], testImageSha256)
            compare(openedSpy.signalArguments[0][1], "dog.jpg")
            fakeAttachments.clear()
            verify(!strip.visible)
            tryCompare(imageComposer, "height", heightWithout)
        }

        function test_imagesAloneCanBeSent() {
            cleanupImages()
            const send = findChild(imageComposer, "sendButton")
            verify(!send.enabled)
            attachTwo()
            verify(send.enabled)
            mouseClick(send)
            compare(root.handled, [""])
            cleanupImages()
        }

        function test_ctrlVOffersTheClipboardToTheAttachmentsFirst() {
            cleanupImages()
            imageComposer.focusInput()
            fakeAttachments.clipboardHasImage = true
            keyClick(Qt.Key_V, Qt.ControlModifier)
            compare(fakeAttachments.pastes, 1)
            compare(fakeAttachments.count, 1)
            compare(imageComposer.text, "") // taken as an image, not pasted as text
            // No image on the clipboard: the attachments decline and the text field pastes as usual.
            fakeAttachments.clipboardHasImage = false
            keyClick(Qt.Key_V, Qt.ControlModifier)
            compare(fakeAttachments.pastes, 2)
            compare(fakeAttachments.count, 1)
            cleanupImages()
        }

        function test_theAttachButtonAsksForFiles() {
            cleanupImages()
            const button = findChild(imageComposer, "attachImageButton")
            verify(button.visible)
            compare(button.Accessible.name, "Attach images")
            mouseClick(button)
            compare(attachSpy.count, 1)
            // Without attachments (null) the composer offers none.
            verify(!findChild(composer, "attachImageButton").visible)
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
