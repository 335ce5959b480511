import QtQuick
import QtTest
import Hearth

// The metrics panel at its width in the window (380 px), with the figures of a long session:
// counts in digit groups, never in exponent form; nothing runs out of its card; card captions
// never overlap their titles; the tokens/s chart states its scale, units and time span.
Item {
    id: root
    width: 380
    height: 1600

    QtObject {
        id: metrics
        property bool generating: true
        property real decodeTokensPerSecond: 78.4
        property real prefillTokensPerSecond: 912
        property real timeToFirstTokenMs: 1234
        property real tokensGenerated: 1198010
        property real kvTokens: 32768
        property real kvCapacity: 32768
        property real kvFill: 1
        property string kvMemory: "1.07 GB"
        property string modelMemory: "398 MB"
        property string residentMemory: "1.61 GB"
        property var decodeHistory: [70, 78.4, 76, 77]
        property var prefillHistory: [0, 912, 0, 0]
        property var kernels: testKernels // a real KernelMetricsModel: a million-call kernel, 24 buckets
        property var replies: testReplies // a real ReplyCacheHistory with two replies
        property int serverRequests: 3
        property real serverTokensGenerated: 12345
        property real serverTokensPerSecond: 41.25
        property var expertHits: [12, 0, 48, 24, 6, 0, 0, 30]
        property int expertLayers: 48
        property bool speculationOn: true
        property bool speculating: true
        property real acceptanceRate: 0.625
        property real tokensPerVerifyPass: 2.875
        property real draftedTokens: 1600
        property real acceptedTokens: 1000
        property bool hasPlainBaseline: true
        property real plainTokensPerSecond: 40
        property real speedup: 1.96
        property int intervalMs: 250
        property int historyLength: 120
        function resetKernelMetrics() {}
    }

    MetricsPanel {
        id: panel
        anchors.fill: parent
        metrics: metrics
    }

    TestCase {
        name: "MetricsPanel"
        when: windowShown

        function collect(item, test, out) {
            if (!item.visible) return out
            if (test(item)) out.push(item)
            for (let i = 0; i < item.children.length; ++i) collect(item.children[i], test, out)
            return out
        }
        function cards() { return collect(panel, i => i.objectName === "metricsCard", []) }
        function texts(item) { return collect(item, i => i.text !== undefined && i.contentWidth !== undefined, []) }

        function initTestCase() { waitForRendering(panel) }

        function test_serverRequestsAreShown() {
            const line = findChild(panel, "serverRequests")
            verify(line.visible)
            verify(line.text.indexOf("3") >= 0, line.text)
            verify(line.text.indexOf(Number(12345).toLocaleString(Qt.locale(), 'f', 0)) >= 0, line.text)
            verify(line.text.indexOf(Number(41.25).toLocaleString(Qt.locale(), 'f', 1)) >= 0, line.text)
        }

        // One bar per expert, as tall as its share of the busiest one; the summary counts the
        // experts ever chosen.
        function test_expertHitsAreShown() {
            const card = findChild(panel, "expertsCard")
            verify(card.visible)
            const bars = collect(card, i => i.objectName === "expertBar", [])
            compare(bars.length, 8)
            compare(bars[2].height, 48)     // the busiest
            compare(bars[3].height, 24)     // half of it
            compare(bars[1].height, 1)      // never chosen: a hairline
            verify(findChild(card, "expertSummary").text.indexOf("5") >= 0)
            verify(findChild(card, "cardCaption").text.indexOf("48") >= 0)
        }

        function test_denseModelsHaveNoExpertCard() {
            metrics.expertHits = []
            verify(!findChild(panel, "expertsCard").visible)
            metrics.expertHits = [12, 0, 48, 24, 6, 0, 0, 30]
        }

        function speculationCard() {
            return cards().find(c => findChild(c, "cardTitle").text === "Speculative decoding")
        }

        // While speculative decoding is on: the acceptance rate, the tokens per verify pass and
        // the speed-up over the plain baseline; without a baseline it says so; off, no card.
        function test_speculationIsShownWhileOn() {
            const card = speculationCard()
            verify(card !== undefined)
            compare(findChild(findChild(card, "acceptanceRate"), "figureValue").text, "63")
            compare(findChild(findChild(card, "tokensPerVerifyPass"), "figureValue").text, "2.88")
            const speedup = findChild(card, "speculationSpeedup")
            verify(speedup.text.indexOf("1.96") >= 0, speedup.text)
            verify(findChild(card, "cardCaption").text.indexOf(Number(1600).toLocaleString(Qt.locale(), 'f', 0)) >= 0)
            metrics.hasPlainBaseline = false
            verify(speedup.text.indexOf("no plain baseline yet") >= 0, speedup.text)
            metrics.hasPlainBaseline = true
            metrics.speculationOn = false
            verify(speculationCard() === undefined)
            metrics.speculationOn = true
        }

        function test_countsAreGroupedNotInExponentForm() {
            for (const t of texts(panel))
                verify(!/\de[+-]\d/.test(t.text), "exponent form: " + t.text)
            const generated = findChild(panel, "tokensGenerated")
            compare(findChild(generated, "figureValue").text, Number(1198010).toLocaleString(Qt.locale(), 'f', 0))
            const calls = collect(panel, i => i.objectName === "kernelCalls", [])
            compare(calls.length, 3)
            const million = Number(1198010).toLocaleString(Qt.locale(), 'f', 0) + " calls"
            verify(calls.some(c => c.text.startsWith(million)), calls.map(c => c.text).join(" | "))
        }

        // Each kernel's figures sit on the line under its name and badges, at the same place in
        // every row, whether or not they would fit beside the badges.
        function test_everyKernelReadsTheSame() {
            const calls = collect(panel, i => i.objectName === "kernelCalls", [])
            compare(calls.length, 3)
            for (const c of calls) {
                compare(c.x, 0)
                verify(c.y > 0, "the figures share the name's line")
                compare(c.y, calls[0].y)
            }
        }

        // What the GPU ran is listed after the CPU's kernels, marked as the GPU's: its dispatches,
        // its share of the GPU's time (not of the CPU's), and no histogram (the GPU's timestamps
        // give a pass's total, not each dispatch's).
        function test_theGpusOperationsAreMarked() {
            const calls = collect(panel, i => i.objectName === "kernelCalls", [])
            const gpu = calls[calls.length - 1]
            verify(gpu.text.startsWith(Number(2403115).toLocaleString(Qt.locale(), 'f', 0) + " dispatches"), gpu.text)
            const row = gpu.parent
            const badges = collect(row, i => i.objectName === "kernelIsa", [])
            compare(badges.length, 1)
            compare(badges[0].text, "GPU")
            compare(collect(row, i => i.objectName === "kernelHistogram", []).length, 0)
            verify(texts(row).some(t => t.text === "100.0% of GPU time"), texts(row).map(t => t.text).join(" | "))
            for (const c of calls.slice(0, 2))
                compare(collect(c.parent, i => i.objectName === "kernelHistogram", []).length, 1)
        }

        function test_nothingRunsOutOfItsCard() {
            const all = cards()
            verify(all.length >= 7)
            for (const card of all) {
                const inside = collect(card, i => i !== card && i.width > 0, [])
                for (const item of inside) {
                    const r = item.mapToItem(card, 0, 0, item.width, item.height)
                    verify(r.x >= -0.5 && r.x + r.width <= card.width + 0.5,
                           "%1 (%2) spans %3..%4 in a card %5 wide".arg(item).arg(item.text || item.objectName)
                               .arg(r.x).arg(r.x + r.width).arg(card.width))
                }
                for (const t of texts(card)) {
                    if (t.elide !== undefined && t.elide !== Text.ElideNone) continue
                    verify(t.contentWidth <= t.width + 1,
                           "\"%1\" is %2 wide in a box of %3".arg(t.text).arg(t.contentWidth).arg(t.width))
                }
            }
        }

        function test_captionsNeverOverlapTheirTitles() {
            for (const card of cards()) {
                const title = findChild(card, "cardTitle")
                const caption = findChild(card, "cardCaption")
                if (!caption.visible) continue
                const a = title.mapToItem(card, 0, 0, title.contentWidth, title.height)
                const b = caption.mapToItem(card, 0, 0, caption.contentWidth, caption.height)
                const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
                verify(!overlap, "\"%1\" overlaps \"%2\"".arg(title.text).arg(caption.text))
            }
        }

        function test_rateChartStatesScaleUnitsAndSpan() {
            const chart = findChild(panel, "tokenRateChart")
            compare(findChild(chart, "rateAxisTop").text, Number(1000).toLocaleString(Qt.locale(), 'f', 0)) // prefill peaked at 912
            compare(findChild(chart, "rateAxisZero").text, "0")
            compare(findChild(chart, "rateAxisUnit").text, "tok/s")
            compare(findChild(chart, "rateSpan").text, "last 30 s") // 120 samples, 4 a second
            metrics.prefillHistory = [0, 0, 0, 0]
            compare(findChild(chart, "rateAxisTop").text, "100") // decode alone: 78.4
            metrics.intervalMs = 1000
            compare(findChild(chart, "rateSpan").text, "last 2 min")
            metrics.intervalMs = 250
            metrics.prefillHistory = [0, 912, 0, 0]
        }
    }
}
