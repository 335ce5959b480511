import QtQuick
import QtTest
import Hearth

// The window's drop area: a .gguf file is shown as acceptable and dropped into
// the controller's loadDroppedFile; anything else is shown as refused and the
// controller is still asked, so that it can say why. Image files go to the
// message's attachments instead (the chat is asked to show first), or are shown
// as refused, with the attachments' reason, when the model reads no images.
Item {
    id: root
    width: 400
    height: 300

    QtObject {
        id: controller
        property var dropped: []
        function isModelUrl(url) { return url.toString().startsWith("file://") && url.toString().toLowerCase().endsWith(".gguf") }
        function loadDroppedFiles(urls) { for (const url of urls) dropped.push(url.toString()); return urls.length === 1 && isModelUrl(urls[0]) }
    }

    QtObject {
        id: attachments
        property var attached: []
        property string refusal: ""
        function areImageUrls(urls) {
            return urls.length > 0 && urls.every(u => u.toString().startsWith("file://") && /\.(png|jpe?g|webp)$/i.test(u.toString()))
        }
        function attachFiles(urls) { for (const url of urls) attached.push(url.toString()); return refusal.length === 0 }
    }

    FileDropArea {
        id: dropArea
        anchors.fill: parent
        controller: controller
        attachments: attachments
    }
    SignalSpy { id: handledSpy; target: dropArea; signalName: "dropHandled" }
    SignalSpy { id: imagesSpy; target: dropArea; signalName: "imagesDropped" }

    Rectangle {
        id: source
        width: 10; height: 10
        x: -50; y: -50
        property string uri: ""
        Drag.dragType: Drag.Internal
        Drag.keys: ["text/uri-list"]
        Drag.mimeData: ({ "text/uri-list": uri })
        Drag.hotSpot.x: 5
        Drag.hotSpot.y: 5
    }

    TestCase {
        name: "FileDropArea"
        when: windowShown

        function init() {
            controller.dropped = []
            attachments.attached = []
            attachments.refusal = ""
            handledSpy.clear()
            imagesSpy.clear()
        }

        function test_acceptsOnlyModelFiles_data() {
            return [
                { tag: "gguf", urls: ["file:///models/tiny.gguf"], accepted: true },
                { tag: "upper-case", urls: ["file:///models/TINY.GGUF"], accepted: true },
                { tag: "text", urls: ["file:///notes.txt"], accepted: false },
                { tag: "two files", urls: ["file:///a.gguf", "file:///b.gguf"], accepted: false },
                { tag: "web", urls: ["https://example.com/a.gguf"], accepted: false },
            ]
        }
        function test_acceptsOnlyModelFiles(data) {
            const urls = data.urls.map(u => Qt.url(u))
            compare(dropArea.canAccept(urls), data.accepted)
        }

        function test_dropGoesToTheController() {
            verify(dropArea.handleDrop([Qt.url("file:///models/tiny.gguf")]))
            compare(controller.dropped, ["file:///models/tiny.gguf"])
            compare(handledSpy.count, 1)
            compare(handledSpy.signalArguments[0][0], true)
        }

        function test_refusedDropStillReachesTheController() {
            verify(!dropArea.handleDrop([Qt.url("file:///notes.txt")]))
            compare(controller.dropped, ["file:///notes.txt"])
            compare(handledSpy.signalArguments[0][0], false)
        }

        // Images join the message: neither the model controller nor a refusal sees them.
        function test_imagesGoToTheMessage() {
            const urls = [Qt.url("file:///pictures/cat.png"), Qt.url("file:///pictures/dog.JPEG")]
            verify(dropArea.canAccept(urls))
            compare(dropArea.messageFor(urls), "Drop to attach these 2 images to your message")
            verify(dropArea.handleDrop(urls))
            compare(attachments.attached, ["file:///pictures/cat.png", "file:///pictures/dog.JPEG"])
            compare(controller.dropped, [])
            compare(imagesSpy.count, 1)
            compare(handledSpy.signalArguments[0][0], true)
        }

        // A model that reads no images: the overlay says so while dragging, and the drop still
        // reaches the attachments, which say it in the chat.
        function test_imagesRefusedWhenTheModelReadsNone() {
            attachments.refusal = "tiny reads no images: load a vision model with its image projector (mmproj)"
            const urls = [Qt.url("file:///pictures/cat.webp")]
            verify(!dropArea.canAccept(urls))
            compare(dropArea.messageFor(urls), attachments.refusal)
            verify(!dropArea.handleDrop(urls))
            compare(attachments.attached, ["file:///pictures/cat.webp"])
            compare(imagesSpy.count, 1)
            compare(handledSpy.signalArguments[0][0], false)
        }

        // An image beside another kind of file is no image drop: the model controller refuses it.
        function test_mixedDropGoesToTheModels() {
            const urls = [Qt.url("file:///pictures/cat.png"), Qt.url("file:///models/tiny.gguf")]
            verify(!dropArea.canAccept(urls))
            verify(!dropArea.handleDrop(urls))
            compare(attachments.attached, [])
            compare(controller.dropped.length, 2)
            compare(imagesSpy.count, 0)
        }

        // Qt Quick's internal drags carry no URLs (only a real platform drag does), so a
        // drag from inside the window shows the overlay as "refused" and drops nothing.
        function test_dragOverShowsTheOverlay() {
            source.uri = "file:///models/tiny.gguf"
            source.x = 150
            source.y = 150
            source.Drag.active = true
            verify(dropArea.containsDrag)
            verify(!dropArea.acceptable)
            const overlay = findChild(dropArea, "dropOverlay")
            verify(overlay.visible)
            source.Drag.active = false
            verify(!dropArea.containsDrag)
            verify(!overlay.visible)
            compare(controller.dropped, [])
        }
    }
}
