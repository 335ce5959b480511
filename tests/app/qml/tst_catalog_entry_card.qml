import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// A catalog card whose download fails while the card sits below the fold: the page scrolls as
// far as the error, which would otherwise come up out of sight.
Item {
    id: root
    width: 600
    height: 400

    Flickable {
        id: page
        anchors.fill: parent
        contentHeight: column.height
        clip: true
        Column {
            id: column
            width: page.width
            Item { width: 1; height: 900 } // what the page shows above the catalog
            CatalogEntryCard {
                id: card
                width: column.width
                index: 0
                catalogId: "tiny"
                name: "Tiny model"
                architecture: "llama"
                parameters: "1B"
                quantization: "Q4_K_M"
                licence: "MIT"
                fileSize: "700 MB"
                memory: "1 GB"
                runnable: true
                memoryFit: "fits"
                prediction: ""
                checksumKnown: false
                downloadState: "none"
                progress: 0
                transfer: ""
                speed: ""
                timeLeft: ""
                error: ""
                note: ""
                draftId: ""
                draftName: ""
                draftState: ""
                projectorSize: "851 MB"
                downloads: null
            }
        }
    }

    TestCase {
        name: "CatalogEntryCard"
        when: windowShown

        // A vision model's card says its projector comes with it.
        function test_aProjectorIsShown() {
            const badge = findChild(card, "visionBadge")
            verify(badge !== null)
            verify(badge.visible)
            verify(badge.text.indexOf("851 MB") >= 0)
            card.projectorSize = ""
            verify(!badge.visible)
            card.projectorSize = "851 MB"
        }

        function test_anErrorBelowTheFoldIsScrolledIntoView() {
            compare(page.contentY, 0)
            card.downloadState = "failed"
            card.error = "Not downloaded: Hugging Face could not be reached (Connection refused)."
            const error = findChild(card, "downloadError_tiny")
            tryVerify(() => {
                const shown = error.mapToItem(root, 0, 0, error.width, error.height)
                return error.visible && shown.y >= 0 && shown.y + shown.height <= root.height
            }, 5000, "the error is out of sight")
        }
    }
}
