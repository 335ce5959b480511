import QtQuick
import QtTest
import Hearth

// The window's drop area: a .gguf file is shown as acceptable and dropped into
// the controller's loadDroppedFile; anything else is shown as refused and the
// controller is still asked, so that it can say why.
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

    ModelDropArea {
        id: dropArea
        anchors.fill: parent
        controller: controller
    }
    SignalSpy { id: handledSpy; target: dropArea; signalName: "dropHandled" }

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
        name: "ModelDropArea"
        when: windowShown

        function init() {
            controller.dropped = []
            handledSpy.clear()
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
