import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Live figures of the engine, sampled a few times a second: tokens/s over
// time, time to first token, prompt tokens reused/computed per reply, KV fill, memory, and each
// kernel path's calls and latency histogram.
Rectangle {
    id: panel
    property var metrics // MetricsController
    signal closeRequested()
    color: Theme.sidebar

    ScrollView {
        id: scroll
        anchors.fill: parent
        contentWidth: availableWidth
        clip: true
        ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the engine metrics") }
        ScrollBar.horizontal.policy: ScrollBar.AlwaysOff // the content takes the view's width

        ColumnLayout {
            width: scroll.availableWidth - 28
            x: 14
            spacing: 12

            RowLayout {
                Layout.fillWidth: true
                Layout.topMargin: 12
                Icon { path: Icons.metrics; size: 20; color: Theme.accent }
                Label { text: qsTr("Engine"); font.pointSize: Theme.large; font.weight: Font.Bold; color: Theme.text; Layout.fillWidth: true }
                Rectangle {
                    implicitWidth: 8; implicitHeight: 8; Layout.preferredWidth: 8; Layout.preferredHeight: 8; radius: 4
                    color: panel.metrics.generating ? Theme.success : Theme.textFaint
                }
                Label {
                    objectName: "engineActivity"
                    text: !panel.metrics.generating ? qsTr("idle")
                          : panel.metrics.readingPrompt ? qsTr("reading the prompt") : qsTr("generating")
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                }
                IconButton { iconPath: Icons.close; iconSize: 14; tip: qsTr("Close"); onClicked: panel.closeRequested() }
            }

            Card {
                title: qsTr("Tokens per second")
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 18
                    BigFigure {
                        objectName: "decodeRate"
                        label: qsTr("generation"); color: Theme.chartDecode
                        value: panel.metrics.decodeTokensPerSecond.toFixed(1)
                    }
                    BigFigure {
                        label: qsTr("prompt"); color: Theme.chartPrefill
                        value: panel.metrics.prefillTokensPerSecond.toFixed(0)
                    }
                }
                TokenRateChart {
                    objectName: "tokenRateChart"
                    Layout.fillWidth: true
                    Layout.preferredHeight: 120
                    decode: panel.metrics.decodeHistory
                    prefill: panel.metrics.prefillHistory
                    capacity: panel.metrics.historyLength
                    spanSeconds: panel.metrics.historyLength * panel.metrics.intervalMs / 1000
                }
            }

            GridLayout {
                Layout.fillWidth: true
                columns: 2
                columnSpacing: 12
                rowSpacing: 12
                // Two equal halves, whatever their figures' widths.
                Card {
                    Layout.preferredWidth: 1
                    title: qsTr("First token")
                    BigFigure { value: panel.grouped(panel.metrics.timeToFirstTokenMs); unit: "ms" }
                }
                Card {
                    Layout.preferredWidth: 1
                    title: qsTr("Generated")
                    BigFigure { objectName: "tokensGenerated"; value: panel.grouped(panel.metrics.tokensGenerated); unit: qsTr("tokens") }
                }
            }

            Card {
                title: qsTr("Prompt tokens per reply")
                trailing: qsTr("last %1 replies").arg(panel.metrics.replies.capacity)
                Label {
                    objectName: "latestReplyCache"
                    readonly property var replies: panel.metrics.replies
                    Layout.fillWidth: true
                    text: replies.count === 0
                          ? qsTr("No replies yet.")
                          : qsTr("Last reply: %1 reused · %2 computed%3").arg(replies.latestReused)
                                .arg(replies.latestComputed)
                                .arg(replies.latestRestored ? qsTr(" · resumed from saved state") : "")
                    color: replies.count === 0 ? Theme.textFaint : Theme.text
                    font.pointSize: Theme.small
                    wrapMode: Text.Wrap
                }
                ReplyCacheChart {
                    objectName: "replyCacheChart"
                    Layout.fillWidth: true
                    Layout.preferredHeight: 70
                    history: panel.metrics.replies
                }
                RowLayout {
                    Layout.fillWidth: true
                    Legend { color: Theme.success; text: qsTr("reused from cache") }
                    Item { Layout.fillWidth: true }
                    Legend { color: Theme.chartPrefill; text: qsTr("computed") }
                }
            }

            // A reply whose prompt evaluated images: how many positions they took and what
            // encoding them cost (an image seen before comes from the encoder's cache).
            Card {
                objectName: "imageMetrics"
                visible: panel.metrics.images > 0
                title: qsTr("Images")
                trailing: qsTr("%n image(s) in the last prompt", "", panel.metrics.images)
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 18
                    BigFigure {
                        objectName: "imagePositions"
                        label: qsTr("image positions")
                        value: panel.grouped(panel.metrics.imagePositions)
                    }
                    BigFigure {
                        objectName: "imageEncodeMs"
                        label: qsTr("encoding")
                        value: panel.grouped(panel.metrics.imageEncodeMs)
                        unit: "ms"
                    }
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pointSize: Theme.small
                    color: Theme.textMuted
                    text: qsTr("%1 encoded now, %2 from the image cache")
                              .arg(panel.metrics.imagesEncoded)
                              .arg(panel.metrics.images - panel.metrics.imagesEncoded)
                }
            }

            // While the settings turn speculative decoding on: how much of the drafts the model
            // accepts, and what it buys against plain decoding of the same model.
            Card {
                visible: panel.metrics.speculationOn
                title: qsTr("Speculative decoding")
                trailing: panel.metrics.speculating ? qsTr("%1 of %2 drafted tokens accepted").arg(panel.grouped(panel.metrics.acceptedTokens)).arg(panel.grouped(panel.metrics.draftedTokens))
                                                    : ""
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 18
                    BigFigure {
                        objectName: "acceptanceRate"
                        label: qsTr("accepted")
                        value: panel.metrics.speculating ? (100 * panel.metrics.acceptanceRate).toFixed(0) : "–"
                        unit: panel.metrics.speculating ? "%" : ""
                    }
                    BigFigure {
                        objectName: "tokensPerVerifyPass"
                        label: qsTr("tokens per verify pass")
                        value: panel.metrics.speculating ? panel.metrics.tokensPerVerifyPass.toFixed(2) : "–"
                    }
                }
                Label {
                    objectName: "speculationSpeedup"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.pointSize: Theme.small
                    color: panel.metrics.speedup > 0 ? Theme.text : Theme.textMuted
                    text: !panel.metrics.speculating ? qsTr("No speculative reply yet.")
                        : !panel.metrics.hasPlainBaseline ? qsTr("Speed-up: no plain baseline yet (a reply of this model with speculative decoding off).")
                        : qsTr("Speed-up: %1× plain decoding (%2 against %3 tokens/s)")
                              .arg(panel.metrics.speedup.toFixed(2))
                              .arg(panel.metrics.decodeTokensPerSecond.toFixed(1))
                              .arg(panel.metrics.plainTokensPerSecond.toFixed(1))
                }
            }

            Card {
                title: qsTr("KV cache")
                ProgressBar {
                    objectName: "kvFill"
                    Layout.fillWidth: true
                    value: panel.metrics.kvFill
                }
                Label {
                    text: qsTr("%1 of %2 tokens · %3").arg(panel.grouped(panel.metrics.kvTokens))
                        .arg(panel.grouped(panel.metrics.kvCapacity)).arg(panel.metrics.kvMemory)
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }

            Card {
                title: qsTr("Memory")
                GridLayout {
                    columns: 2
                    columnSpacing: 16
                    rowSpacing: 4
                    Label { text: qsTr("Model"); color: Theme.textMuted; font.pointSize: Theme.small }
                    Label { text: panel.metrics.modelMemory; color: Theme.text; font.pointSize: Theme.small }
                    Label { text: qsTr("KV caches"); color: Theme.textMuted; font.pointSize: Theme.small }
                    Label { text: panel.metrics.kvMemory; color: Theme.text; font.pointSize: Theme.small }
                    Label { text: qsTr("Process (resident)"); color: Theme.textMuted; font.pointSize: Theme.small }
                    Label { text: panel.metrics.residentMemory; color: Theme.text; font.pointSize: Theme.small }
                }
            }

            Card {
                objectName: "serverRequestsCard"
                title: qsTr("Local API server")
                visible: panel.metrics.serverRequests > 0
                Label {
                    objectName: "serverRequests"
                    text: qsTr("%n request(s) answered", "", panel.metrics.serverRequests) + " · "
                          + qsTr("%1 tokens generated").arg(panel.grouped(panel.metrics.serverTokensGenerated)) + " · "
                          + qsTr("last %1 tokens/s").arg(Number(panel.metrics.serverTokensPerSecond).toLocaleString(Qt.locale(), 'f', 1))
                    color: Theme.text
                    font.pointSize: Theme.small
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }

            Card {
                objectName: "expertsCard"
                title: qsTr("Experts chosen")
                trailing: qsTr("%1 experts · summed over %2 layers").arg(panel.metrics.expertHits.length)
                              .arg(panel.metrics.expertLayers)
                visible: panel.metrics.expertHits.length > 0
                // One bar per expert, its height its share of the busiest expert's count.
                Item {
                    id: expertBars
                    readonly property var hits: panel.metrics.expertHits
                    readonly property real busiest: Math.max(1, ...hits)
                    Layout.fillWidth: true
                    Layout.preferredHeight: 48
                    Row {
                        anchors.fill: parent
                        spacing: expertBars.hits.length > 64 ? 0 : 1
                        Repeater {
                            model: expertBars.hits
                            Rectangle {
                                objectName: "expertBar"
                                required property var modelData
                                width: Math.max(1, (expertBars.width - (expertBars.hits.length - 1) * parent.spacing)
                                                   / Math.max(1, expertBars.hits.length))
                                height: Math.max(1, expertBars.height * modelData / expertBars.busiest)
                                anchors.bottom: parent.bottom
                                color: Theme.chartPrefill
                            }
                        }
                    }
                }
                Label {
                    objectName: "expertSummary"
                    readonly property var hits: panel.metrics.expertHits
                    readonly property int used: hits.filter(h => h > 0).length
                    text: qsTr("%1 of %2 experts chosen at least once").arg(used).arg(hits.length)
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }

            Card {
                title: qsTr("Kernel dispatch")
                trailing: qsTr("calls · mean · latency histogram")
                Label {
                    visible: kernelList.count === 0
                    text: qsTr("No kernels have run yet.")
                    color: Theme.textFaint
                    font.pointSize: Theme.small
                }
                // A Column, not the card's layout: the kernel list is reset whenever a new kernel
                // path appears, and Qt 6.4's layouts crashed on Repeater delegates destroyed by a
                // reset while a rearrange was pending.
                Column {
                    id: kernelColumn
                    Layout.fillWidth: true
                    spacing: 10
                    Repeater {
                        id: kernelList
                        model: panel.metrics.kernels
                        delegate: ColumnLayout {
                            id: kernel
                            required property string operation
                            required property string type
                            required property string isa
                            required property string kernel
                            required property var calls
                            required property string callsText
                            required property string meanLatency
                            required property var histogram
                            required property string histogramRange
                            required property real share
                            required property bool gpu // an operation the GPU ran: no histogram, its share of GPU time
                            width: kernelColumn.width // in a Column: Layout.fillWidth would not apply
                            spacing: 3
                            // The name and badges, the kernel's name, then the figures on a line of
                            // their own, so that every kernel reads the same however long its
                            // figures are.
                            Flow {
                                Layout.fillWidth: true
                                spacing: 6
                                Label { text: kernel.operation; color: Theme.text; font.pointSize: Theme.small; font.weight: Font.DemiBold }
                                Badge { text: kernel.type; visible: text.length > 0 }
                                Badge { objectName: "kernelIsa"; text: kernel.isa; accent: kernel.isa !== "scalar" }
                            }
                            // The kernel that ran, on a line of its own (names run long).
                            Label {
                                Layout.fillWidth: true
                                text: kernel.kernel
                                elide: Text.ElideRight
                                color: Theme.textMuted
                                font.pointSize: Theme.small
                                font.family: Theme.monoFamily
                            }
                            Label {
                                objectName: "kernelCalls"
                                Layout.fillWidth: true
                                text: (kernel.gpu ? qsTr("%1 dispatches · %2") : qsTr("%1 calls · %2")).arg(kernel.callsText).arg(kernel.meanLatency)
                                color: Theme.textMuted
                                font.pointSize: Theme.small
                                font.family: Theme.monoFamily
                                wrapMode: Text.Wrap
                            }
                            RowLayout {
                                visible: !kernel.gpu
                                Layout.fillWidth: true
                                spacing: 8
                                Row {
                                    id: bars
                                    objectName: "kernelHistogram"
                                    Layout.fillWidth: true
                                    Layout.preferredHeight: 26
                                    height: 26
                                    clip: true
                                    // The bars share the row's width, however many there are.
                                    spacing: kernel.histogram.length > 24 ? 1 : 2
                                    readonly property real peak: Math.max(1, ...kernel.histogram)
                                    Repeater {
                                        model: kernel.histogram
                                        Rectangle {
                                            required property var modelData
                                            anchors.bottom: parent.bottom
                                            width: Math.max(1, (bars.width - bars.spacing * (kernel.histogram.length - 1)) / Math.max(1, kernel.histogram.length))
                                            height: Math.max(modelData > 0 ? 2 : 0, 26 * Math.log(1 + modelData) / Math.log(1 + bars.peak))
                                            radius: 1.5
                                            color: Theme.accent
                                            opacity: 0.85
                                        }
                                    }
                                }
                            }
                            Label {
                                text: kernel.gpu ? qsTr("%1% of GPU time").arg((kernel.share * 100).toFixed(1))
                                                 : kernel.histogramRange + qsTr(" · %1% of kernel time").arg((kernel.share * 100).toFixed(1))
                                color: Theme.textFaint
                                font.pointSize: Theme.small * 0.92
                                wrapMode: Text.Wrap
                                Layout.fillWidth: true
                            }
                        }
                    }
                }
                PillButton {
                    text: qsTr("Reset counters")
                    onClicked: panel.metrics.resetKernelMetrics()
                }
            }
            Item { height: 12 }
        }
    }

    // A whole number with the locale's digit groups ("32,768"): JavaScript writes large numbers
    // in exponent form.
    function grouped(value) { return Number(value).toLocaleString(Qt.locale(), 'f', 0) }

    component Card: Rectangle {
        id: card
        property string title
        property string trailing
        default property alias content: cardColumn.data
        objectName: "metricsCard"
        Layout.fillWidth: true
        implicitHeight: cardColumn.implicitHeight + 28
        radius: Theme.radius
        color: Theme.surface
        border.color: Theme.border
        ColumnLayout {
            id: cardColumn
            anchors.fill: parent
            anchors.margins: 14
            spacing: 8
            // A Flow: a caption that does not fit beside the title goes under it, not over it.
            Flow {
                Layout.fillWidth: true
                spacing: 10
                Label { objectName: "cardTitle"; text: card.title; color: Theme.textMuted; font.pointSize: Theme.small; font.weight: Font.DemiBold }
                Label { objectName: "cardCaption"; text: card.trailing; visible: text.length > 0; color: Theme.textFaint; font.pointSize: Theme.small * 0.9 }
            }
        }
    }
    component BigFigure: ColumnLayout {
        id: figure
        property string value
        property string unit
        property string label
        property color color: Theme.text
        spacing: 0
        Layout.fillWidth: true
        RowLayout {
            spacing: 4
            Layout.fillWidth: true
            // Shrinks to its card's width rather than running out of it.
            Label {
                objectName: "figureValue"
                text: figure.value
                color: figure.color
                font.pointSize: Theme.huge
                font.weight: Font.Bold
                fontSizeMode: Text.HorizontalFit
                minimumPointSize: Theme.small
                Layout.fillWidth: true
                Layout.minimumWidth: 0
                Layout.preferredWidth: implicitWidth
                Layout.maximumWidth: implicitWidth
            }
            Label { text: figure.unit; visible: text.length > 0; color: Theme.textMuted; font.pointSize: Theme.small; Layout.alignment: Qt.AlignBaseline }
            Item { Layout.fillWidth: true }
        }
        Label { text: figure.label; visible: text.length > 0; color: Theme.textMuted; font.pointSize: Theme.small }
    }
    component Legend: RowLayout {
        id: legend
        property color color
        property string text
        spacing: 6
        Rectangle { implicitWidth: 10; implicitHeight: 10; Layout.preferredWidth: 10; Layout.preferredHeight: 10; radius: 3; color: legend.color }
        Label { text: legend.text; color: Theme.textMuted; font.pointSize: Theme.small }
    }
}
