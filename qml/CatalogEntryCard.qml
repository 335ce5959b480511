import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One model of the catalog and its download.
Rectangle {
    id: card
    required property int index
    required property string catalogId
    required property string name
    required property string architecture
    required property string parameters
    required property string quantization
    required property string licence
    required property string fileSize
    required property string memory
    required property bool runnable
    required property string memoryFit
    required property string prediction // "≈ 24 tok/s on this computer, fits in memory"; empty: unknown
    required property bool checksumKnown
    required property string downloadState
    required property double progress
    required property string transfer
    required property string speed
    required property string timeLeft
    required property string error
    required property string note
    required property string draftId   // the entry that drafts for this one; empty: none
    required property string draftName
    required property string draftState // its download state
    required property string projectorSize // its image projector's size, downloaded with it; empty: none
    property var downloads // DownloadController

    readonly property bool active: downloadState === "preparing" || downloadState === "running"
                                   || downloadState === "verifying"

    // A failure comes up at the card, often below the fold (the catalog is at the page's end):
    // the page scrolls as far as needed to show it.
    // Again as the layout places it (its place comes with the layout's next polish), while it shows.
    property bool revealWanted: false
    onErrorChanged: { revealWanted = error.length > 0; Qt.callLater(card.revealError) }
    function revealError() {
        if (!revealWanted || !downloadError.visible || downloadError.height <= 0) return
        for (let view = card.parent; view; view = view.parent) {
            if (view.contentY === undefined || view.flicking === undefined) continue // not a Flickable
            const shown = downloadError.mapToItem(view.contentItem, 0, 0, downloadError.width, downloadError.height)
            const bottom = shown.y + shown.height + 16
            if (bottom > view.contentY + view.height) view.contentY = bottom - view.height
            return
        }
    }

    objectName: "catalogCard_" + catalogId
    implicitHeight: layout.implicitHeight + 28
    radius: Theme.radius
    color: Theme.surface
    border.color: downloadState === "done" ? Theme.success : Theme.border

    ColumnLayout {
        id: layout
        anchors.fill: parent
        anchors.margins: 14
        anchors.leftMargin: 18
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Label {
                text: card.name
                font.pointSize: Theme.fontSize + 1.5
                font.weight: Font.DemiBold
                color: Theme.text
            }
            Badge { visible: card.downloadState === "done"; text: qsTr("downloaded"); accent: true }
            Item { Layout.fillWidth: true }
            PillButton {
                objectName: "downloadButton_" + card.catalogId
                visible: card.downloadState === "none" || card.downloadState === "failed"
                enabled: card.runnable
                primary: true
                text: card.downloadState === "failed" ? qsTr("Retry") : qsTr("Download")
                onClicked: card.downloads.download(card.catalogId)
            }
            PillButton {
                objectName: "resumeButton_" + card.catalogId
                visible: card.downloadState === "paused"
                primary: true
                text: qsTr("Resume")
                onClicked: card.downloads.download(card.catalogId)
            }
            PillButton {
                objectName: "pauseButton_" + card.catalogId
                visible: card.active
                text: qsTr("Pause")
                onClicked: card.downloads.pause(card.catalogId)
            }
            PillButton {
                objectName: "cancelButton_" + card.catalogId
                visible: card.active || card.downloadState === "paused" || card.downloadState === "failed"
                danger: true
                text: qsTr("Cancel")
                onClicked: card.downloads.cancel(card.catalogId)
            }
        }
        Flow {
            Layout.fillWidth: true
            spacing: 6
            Badge { visible: card.architecture.length > 0; text: card.architecture }
            Badge { visible: card.parameters.length > 0; text: qsTr("%1 params").arg(card.parameters) }
            Badge { visible: card.quantization.length > 0; text: card.quantization }
            Badge { text: qsTr("file ≈ %1").arg(card.fileSize) }
            Badge { text: qsTr("needs ≈ %1").arg(card.memory) }
            Badge { visible: card.licence.length > 0; text: card.licence }
            Badge { visible: !card.checksumKnown; text: qsTr("SHA-256 from Hugging Face") }
            Badge {
                objectName: "visionBadge"
                visible: card.projectorSize.length > 0
                accent: true
                text: qsTr("vision, + %1 image projector").arg(card.projectorSize)
            }
        }
        Label {
            objectName: "catalogPrediction_" + card.catalogId
            visible: text.length > 0
            Layout.fillWidth: true
            Layout.preferredWidth: 0 // wraps in the card's width rather than widening it
            wrapMode: Text.Wrap
            font.pointSize: Theme.small
            color: Theme.textMuted
            text: card.prediction
        }
        // Its draft for speculative decoding (Settings → Speculative decoding → draft model).
        RowLayout {
            objectName: "catalogDraft_" + card.catalogId
            visible: card.draftId.length > 0
            Layout.fillWidth: true
            spacing: 8
            Label {
                Layout.fillWidth: true
                Layout.preferredWidth: 0
                wrapMode: Text.Wrap
                font.pointSize: Theme.small
                color: Theme.textMuted
                text: qsTr("Drafts with %1 for speculative decoding: faster replies, the same text.").arg(card.draftName)
            }
            PillButton {
                objectName: "downloadDraftButton_" + card.catalogId
                visible: card.draftState === "none" || card.draftState === "failed"
                text: qsTr("Get %1").arg(card.draftName)
                tip: qsTr("Download the draft model too")
                onClicked: card.downloads.download(card.draftId)
            }
        }
        Label {
            objectName: "catalogWarning_" + card.catalogId
            visible: text.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pointSize: Theme.small
            color: card.runnable && card.memoryFit !== "tooLarge" ? Theme.textMuted : Theme.danger
            text: !card.runnable
                  ? qsTr("Hearth cannot run this model: its architecture (%1) is not supported.").arg(card.architecture)
                  : card.memoryFit === "tooLarge" ? qsTr("Needs more memory than this computer has.")
                  : card.memoryFit === "tight"
                    ? qsTr("Needs most of this computer's memory; other programs may slow it down.")
                    : ""
        }

        // The download under way (or paused), with speed and time left.
        ProgressBar {
            objectName: "downloadProgress_" + card.catalogId
            Layout.fillWidth: true
            visible: card.active || card.downloadState === "paused"
            indeterminate: card.progress < 0 && card.active
            value: Math.max(0, card.progress)
        }
        Label {
            objectName: "downloadStatus_" + card.catalogId
            visible: text.length > 0
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            font.pointSize: Theme.small
            color: Theme.textMuted
            text: {
                if (card.downloadState === "none" || card.downloadState === "done") return ""
                var parts = [card.transfer]
                if (card.speed.length > 0) parts.push(card.speed)
                if (card.timeLeft.length > 0) parts.push(qsTr("%1 left").arg(card.timeLeft))
                if (card.note.length > 0) parts.push(card.note)
                return parts.join(" · ")
            }
        }
        Label {
            id: downloadError
            objectName: "downloadError_" + card.catalogId
            onHeightChanged: Qt.callLater(card.revealError)
            onYChanged: Qt.callLater(card.revealError)
            visible: card.error.length > 0
            Layout.fillWidth: true
            text: card.error
            color: Theme.danger
            wrapMode: Text.Wrap
            font.pointSize: Theme.small
        }
    }
}
