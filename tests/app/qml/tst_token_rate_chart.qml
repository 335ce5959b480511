import QtQuick
import QtTest
import Hearth

// The tokens/s chart: the scale at the top of its axis is the peak rounded up to 1, 2 or 5 times
// a power of ten; the axis names its unit and the span under the plot its time; the labels sit
// beside the plot, not over it; and the decode line is drawn at its height on the scale.
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
        }

        function label(name) { return findChild(chart, name) }
        function rectIn(item) { return item.mapToItem(chart, 0, 0, item.width, item.height) }
        function number(n) { return Number(n).toLocaleString(Qt.locale(), 'f', 0) }

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
    }
}
