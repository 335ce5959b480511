import QtQuick
import QtTest
import Hearth

// The tokens/s chart: the scale at the top of its axis is the peak rounded up to 1, 2 or 5 times
// a power of ten; the axis names its unit and the span under the plot its time; the labels sit
// beside the plot, not over it; and the decode line is drawn at its height on the scale. A short
// reply (one sample, two, rates of 0, one huge rate) still shows a labelled scale of at least
// 1 tok/s and a line or dot inside the plot; no samples at all show "No data yet" and no numbers.
Item {
    id: root
    width: 360
    height: 160

    Rectangle { anchors.fill: parent; color: "white" }

    TokenRateChart {
        id: chart
        anchors.fill: parent
        anchors.margins: 10
        decodeColor: "#0000ff"
        prefillColor: "#ff0000"
        gridColor: "#e0e0e0"
    }

    TestCase {
        name: "TokenRateChart"
        when: windowShown

        function init() {
            chart.decode = []
            chart.prefill = []
            chart.spanSeconds = 30
            chart.capacity = 120
        }

        function label(name) { return findChild(chart, name) }
        function rectIn(item) { return item.mapToItem(chart, 0, 0, item.width, item.height) }
        function number(n) { return Number(n).toLocaleString(Qt.locale(), 'f', 0) }
        function isBlue(c) { return c.b > 0.7 && c.r < 0.4 && c.g < 0.4 } // the decode line, not its fill
        function isRed(c) { return c.r > 0.7 && c.g < 0.4 && c.b < 0.4 }  // the prefill line

        // The box (in the plot's coordinates) of the chart's pixels that pass `test`, or null.
        // The whole chart is searched, its labels and margins too, not only the plot.
        function pixelsOf(test) {
            const plot = label("ratePlot")
            waitForRendering(chart)
            const image = grabImage(root)
            const origin = chart.mapToItem(root, 0, 0)
            let box = null
            for (let y = Math.floor(origin.y); y < origin.y + chart.height; ++y) {
                for (let x = Math.floor(origin.x); x < origin.x + chart.width; ++x) {
                    if (!test(image.pixel(x, y))) continue
                    const p = root.mapToItem(plot, x, y)
                    if (!box) box = { left: p.x, right: p.x, top: p.y, bottom: p.y, count: 0 }
                    box.left = Math.min(box.left, p.x); box.right = Math.max(box.right, p.x)
                    box.top = Math.min(box.top, p.y); box.bottom = Math.max(box.bottom, p.y)
                    ++box.count
                }
            }
            return box
        }
        // Every such pixel lies inside the plot, clear of its edges (a line cut off would touch them).
        function verifyInsidePlot(box, what) {
            const plot = label("ratePlot")
            verify(box !== null, what + ": nothing drawn")
            verify(box.left >= 1 && box.right <= plot.width - 2 && box.top >= 1 && box.bottom <= plot.height - 2,
                   what + " spans x " + box.left + ".." + box.right + ", y " + box.top + ".." + box.bottom
                   + " of a plot " + plot.width + "x" + plot.height)
        }
        // The plot's height for a rate on the scale (its zero line at the bottom, less the inset).
        function yOf(rate) {
            const plot = label("ratePlot")
            return plot.height - chart.inset - rate / chart.peak * (plot.height - 2 * chart.inset)
        }
        function verifyScale(top) {
            compare(label("rateAxisTop").text, top)
            verify(label("rateAxisTop").visible && label("rateAxisZero").visible && label("rateAxisUnit").visible)
            compare(label("rateAxisZero").text, "0")
            compare(label("rateAxisUnit").text, "tok/s")
            verify(!label("rateNoData").visible)
        }

        function test_scaleIsThePeakRoundedUp() {
            chart.decode = [10, 20, 30, 47]
            compare(label("rateAxisTop").text, "50")
            chart.prefill = [0, 912, 0, 0]
            compare(label("rateAxisTop").text, number(1000))
            chart.prefill = [0, 1001]
            compare(label("rateAxisTop").text, number(2000))
            chart.prefill = []
            chart.decode = [0.4, 0.2]
            compare(label("rateAxisTop").text, "1") // nothing generated yet: a scale of 1, never 0
            compare(label("rateAxisZero").text, "0")
        }

        function test_unitsAndTimeSpan() {
            compare(label("rateAxisUnit").text, "tok/s")
            compare(label("rateSpan").text, "last 30 s")
            chart.spanSeconds = 89
            compare(label("rateSpan").text, "last 89 s")
            chart.spanSeconds = 120
            compare(label("rateSpan").text, "last 2 min")
            chart.spanSeconds = 600
            compare(label("rateSpan").text, "last 10 min")
        }

        function test_labelsSitBesideThePlot() {
            chart.decode = [100000, 5]
            waitForRendering(chart)
            const plot = rectIn(label("ratePlot"))
            verify(plot.width > chart.width / 2, "the plot is " + plot.width + " wide")
            for (const name of ["rateAxisTop", "rateAxisUnit", "rateAxisZero"]) {
                const r = rectIn(label(name))
                verify(r.x >= 0 && r.x + label(name).contentWidth <= plot.x,
                       name + " spans " + r.x + ".." + (r.x + r.width) + ", the plot starts at " + plot.x)
            }
            const span = rectIn(label("rateSpan"))
            verify(span.y >= plot.y + plot.height, "the time span overlaps the plot")
            compare(span.x, plot.x)
            verify(span.y + span.height <= chart.height + 0.5)
        }

        // A full history at half the scale: the line crosses the middle of the plot, in its colour,
        // and the plot above it is empty.
        function test_decodeLineIsDrawnAtItsValue() {
            const values = []
            for (let i = 0; i < chart.capacity; ++i) values.push(25)
            chart.decode = values
            compare(label("rateAxisTop").text, "50")
            const plot = label("ratePlot")
            waitForRendering(plot)
            // Grabbed whole, and read at the plot's points mapped into it.
            const image = grabImage(root)
            const at = (x, y) => { const p = plot.mapToItem(root, x, y); return image.pixel(Math.round(p.x), Math.round(p.y)) }
            const x = plot.width / 2
            const lineY = plot.height - 0.5 * (plot.height - 1)
            const isBlue = (c) => c.b > 0.7 && c.r < 0.4 && c.g < 0.4
            let onLine = false
            for (let dy = -2; dy <= 2; ++dy) onLine = onLine || isBlue(at(x, lineY + dy))
            verify(onLine, "no decode line at y " + lineY + " of " + plot.height)
            const above = at(x, plot.height * 0.35)
            verify(above.r > 0.9 && above.g > 0.9 && above.b > 0.9, "above the line: " + above)
            const below = at(x, plot.height * 0.8)
            verify(below.b > below.r, "the area under the line is not filled: " + below)
        }

        // Nothing sampled yet: no scale to read, so no numbers, and the chart says so.
        function test_noSamplesShowNoDataYet() {
            for (const name of ["rateAxisTop", "rateAxisZero", "rateAxisUnit"])
                verify(!label(name).visible, name + " shows with no samples")
            const noData = label("rateNoData")
            verify(noData.visible)
            compare(noData.text, "No data yet")
            const plot = rectIn(label("ratePlot"))
            const r = rectIn(noData)
            verify(r.x >= plot.x && r.x + r.width <= plot.x + plot.width + 0.5
                   && r.y >= plot.y && r.y + r.height <= plot.y + plot.height + 0.5, "the note lies outside the plot")
            compare(label("rateSpan").text, "last 30 s") // the time axis still says what it covers
            compare(pixelsOf(isBlue), null)
            compare(pixelsOf(isRed), null)
            // The first sample brings the scale.
            chart.decode = [0]
            verifyScale("1")
        }

        // A reply shorter than a sample's interval: one sample, a dot at the right edge at its height.
        function test_oneSampleIsADotOnALabelledScale() {
            chart.decode = [57]
            verifyScale("100")
            verify(!label("rateIdle").visible)
            const dot = pixelsOf(isBlue)
            verifyInsidePlot(dot, "the dot")
            const plot = label("ratePlot")
            verify(dot.left > plot.width * 0.9, "the newest sample is not at the right: " + dot.left)
            fuzzyCompare((dot.top + dot.bottom) / 2, yOf(57), 2)
        }

        // Two samples, the first 0: a short line at the right end, rising to the second, which,
        // the only one above 0, also has a dot (radius inset - 1) to be seen by.
        function test_twoSamples() {
            chart.decode = [0, 12]
            verifyScale("20")
            const line = pixelsOf(isBlue)
            verifyInsidePlot(line, "the line")
            fuzzyCompare(line.top, yOf(12) - (chart.inset - 1), 1.5)
            verify(line.bottom >= yOf(0) - 2, "the line does not start at 0: " + line.bottom)
            chart.prefill = [300, 0]
            verifyScale(number(500))
            verifyInsidePlot(pixelsOf(isRed), "the prefill line")
        }

        // Samples of 0 only (the model idle all the time the chart spans): a scale of
        // 1 tok/s, never 0..0, the line along the zero line inside the plot, and a word on why.
        function test_allZero() {
            chart.decode = [0, 0, 0, 0]
            chart.prefill = [0, 0, 0, 0]
            verifyScale("1")
            const idle = label("rateIdle")
            verify(idle.visible)
            compare(idle.text, "Nothing was generated in this time")
            const line = pixelsOf(isBlue)
            verifyInsidePlot(line, "the zero line")
            fuzzyCompare(line.bottom, yOf(0) + 1, 2)
            chart.decode = [0, 0, 0, 3]
            verify(!idle.visible)
            verifyScale("5")
        }

        // One huge rate among small ones (prefill of a long prompt): the scale rounds it up and
        // says it short, so the axis stays narrow and the plot wide; the spike reaches its height
        // and stays inside the plot. What is not a finite number counts as 0.
        function test_oneHugeValue() {
            chart.decode = [5, 250000, 7]
            verifyScale("500 k")
            const plot = rectIn(label("ratePlot"))
            verify(plot.width > chart.width * 0.75, "the axis takes " + plot.x + " of " + chart.width)
            const spike = pixelsOf(isBlue)
            verifyInsidePlot(spike, "the spike")
            fuzzyCompare(spike.top, yOf(250000) - 1, 2)
            chart.decode = [1, 3200000]
            verifyScale("5 M")
            verifyInsidePlot(pixelsOf(isBlue), "the spike")
            chart.decode = [NaN, Infinity, -4, 3]
            verifyScale("5")
            verifyInsidePlot(pixelsOf(isBlue), "the line")
        }

        // More samples than the plot's width holds: the oldest are left out, nothing is drawn
        // past the plot's left edge.
        function test_moreSamplesThanCapacity() {
            chart.capacity = 10
            const values = []
            for (let i = 0; i < 40; ++i) values.push(i % 2 ? 80 : 20)
            chart.decode = values
            verifyScale("100")
            verifyInsidePlot(pixelsOf(isBlue), "the line")
            chart.capacity = 120
        }
    }
}
