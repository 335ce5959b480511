import QtQuick
import QtTest
import Hearth

// The per-reply prompt chart over a real ReplyCacheHistory with room for 4 replies and 5 recorded
// (reused + computed): 0+900 (dropped out), 0+60, 60+30 (resumed from a saved state), 90+10 and
// 100+20. One bar per reply kept, oldest on the left, each a slot wide; reused at the bottom and
// computed stacked on it, heights on one scale whose top is the largest prompt kept.
Item {
    id: root
    width: 400
    height: 140

    ReplyCacheChart {
        id: chart
        x: 10
        y: 10
        width: 320
        height: 100
        history: testReplyChartHistory
    }

    TestCase {
        name: "ReplyCacheChart"
        when: windowShown

        function collect(item, name, out) {
            if (item.objectName === name) out.push(item)
            for (let i = 0; i < item.children.length; ++i) collect(item.children[i], name, out)
            return out
        }
        function bars() {
            return collect(chart, "replyBar", []).sort((a, b) => a.mapToItem(chart, 0, 0).x - b.mapToItem(chart, 0, 0).x)
        }
        function segment(bar, name) { return collect(bar, name, [])[0] }

        function initTestCase() { waitForRendering(chart) }

        function test_oneBarPerReplyKeptOldestFirst() {
            compare(testReplyChartHistory.count, 4)
            const all = bars()
            compare(all.length, 4)
            compare(all.map(b => b.reused + "+" + b.computed).join(" "), "0+60 60+30 90+10 100+20")
            for (const bar of all) compare(bar.width, chart.width / 4)
            // Right-aligned: the newest bar ends at the chart's right edge.
            const last = all[3].mapToItem(chart, 0, 0, all[3].width, all[3].height)
            compare(last.x + last.width, chart.width)
        }

        function test_segmentsStackOnOneScale() {
            compare(testReplyChartHistory.peak, 120) // the 900-token prompt has dropped out
            const scale = (chart.height - 2) / 120
            for (const bar of bars()) {
                const reused = segment(bar, "reusedSegment")
                const computed = segment(bar, "computedSegment")
                fuzzyCompare(reused.height, bar.reused * scale, 0.01)
                fuzzyCompare(computed.height, bar.computed * scale, 0.01)
                // Reused sits on the baseline, computed right on top of it.
                fuzzyCompare(reused.y + reused.height, bar.height, 0.01)
                fuzzyCompare(computed.y + computed.height, reused.y, 0.01)
                verify(reused.width >= 2 && reused.width <= bar.width)
            }
            // The largest prompt kept reaches (almost) the top.
            const tallest = segment(bars()[3], "computedSegment")
            verify(tallest.y <= 2.01, "the tallest bar's top is at " + tallest.y)
        }

        function test_reusedAndComputedAreTwoColours() {
            const bar = bars()[2] // 90 reused, 10 computed
            verify(!Qt.colorEqual(chart.reusedColor, chart.computedColor))
            verify(Qt.colorEqual(segment(bar, "reusedSegment").color, chart.reusedColor))
            verify(Qt.colorEqual(segment(bar, "computedSegment").color, chart.computedColor))
            // A reply with nothing reused shows no reused segment.
            compare(segment(bars()[0], "reusedSegment").height, 0)
        }

        function test_onlyTheResumedReplyIsMarked() {
            const marked = bars().map(b => b.restored)
            compare(marked, [false, true, false, false])
            const markers = bars().map(b => segment(b, "restoredMarker").visible)
            compare(markers, [false, true, false, false])
            // It sits just above its bar.
            const bar = bars()[1]
            const marker = segment(bar, "restoredMarker")
            verify(marker.y + marker.height <= segment(bar, "computedSegment").y)
        }
    }
}
