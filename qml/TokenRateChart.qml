import QtQuick
import QtQuick.Controls

// Tokens per second over the last samples: decode (filled line) and prefill (line), drawn on a
// Canvas, with its scale (tokens/s at the top grid line, 0 at the bottom) on the left and the
// time span it covers underneath. The scale is the largest rate rounded up to 1, 2 or 5 times a
// power of ten, never below 1 tok/s, so a short reply (a sample or two, or rates of 0) still
// reads against a labelled axis; a lone sample is drawn as a dot. With no samples at all it
// says so and shows no numbers.
Item {
    id: chart
    property var decode: []
    property var prefill: []
    property color decodeColor: Theme.chartDecode
    property color prefillColor: Theme.chartPrefill
    property color gridColor: Theme.border
    property int capacity: 120      // samples across the whole width
    property real spanSeconds: 30   // the time those samples cover
    readonly property int samples: Math.max(decode ? decode.length : 0, prefill ? prefill.length : 0)
    readonly property bool hasData: samples > 0
    // The largest rate shown; what is not a finite number counts as 0.
    readonly property real largest: {
        let m = 0
        for (const v of (decode || [])) m = Math.max(m, finite(v))
        for (const v of (prefill || [])) m = Math.max(m, finite(v))
        return m
    }
    readonly property real peak: niceCeiling(Math.max(1, largest))
    // Inside the plot, so that a line of width 2 and a lone sample's dot are not cut at its edges.
    readonly property real inset: 4

    function finite(v) {
        const n = Number(v)
        return isFinite(n) && n > 0 ? n : 0
    }
    function niceCeiling(v) {
        const p = Math.pow(10, Math.floor(Math.log10(v)))
        for (const s of [1, 2, 5, 10]) if (v <= s * p * (1 + 1e-9)) return s * p
        return 10 * p
    }
    // Grouped digits up to 9,999; above, thousands and millions, so a huge rate keeps the axis narrow.
    function axisText(v) {
        if (v >= 1e6) return qsTr("%1 M").arg(Number(v / 1e6).toLocaleString(Qt.locale(), 'f', 0))
        if (v >= 1e4) return qsTr("%1 k").arg(Number(v / 1e3).toLocaleString(Qt.locale(), 'f', 0))
        return Number(v).toLocaleString(Qt.locale(), 'f', 0)
    }
    function spanText(seconds) {
        return seconds >= 90 ? qsTr("last %1 min").arg(Math.round(seconds / 60))
                             : qsTr("last %1 s").arg(Math.round(seconds))
    }
    implicitHeight: 110

    Column {
        id: axis
        objectName: "rateAxis"
        visible: chart.hasData
        anchors.left: parent.left
        anchors.top: parent.top
        anchors.bottom: span.top
        Label {
            id: axisTop
            objectName: "rateAxisTop"
            text: chart.axisText(chart.peak)
            color: Theme.textFaint
            font.pointSize: Theme.small * 0.9
        }
        Label {
            objectName: "rateAxisUnit"
            text: qsTr("tok/s")
            color: Theme.textFaint
            font.pointSize: Theme.small * 0.9
        }
    }
    Label {
        objectName: "rateAxisZero"
        visible: chart.hasData
        anchors.right: axis.right
        y: plot.y + plot.height - chart.inset - height / 2 // centred on the plot's zero line
        text: "0"
        color: Theme.textFaint
        font.pointSize: Theme.small * 0.9
    }
    Label {
        id: span
        objectName: "rateSpan"
        anchors.left: plot.left
        anchors.bottom: parent.bottom
        text: chart.spanText(chart.spanSeconds)
        color: Theme.textFaint
        font.pointSize: Theme.small * 0.9
    }
    Label {
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        text: qsTr("now")
        color: Theme.textFaint
        font.pointSize: Theme.small * 0.9
    }

    Canvas {
        id: plot
        objectName: "ratePlot"
        anchors.left: axis.visible ? axis.right : parent.left
        anchors.leftMargin: axis.visible ? 6 : 0
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.topMargin: Math.max(0, axisTop.height / 2 - chart.inset) // the top line level with the scale
        anchors.bottom: span.top
        anchors.bottomMargin: 2
        onWidthChanged: requestPaint()
        onHeightChanged: requestPaint()

        onPaint: {
            const ctx = getContext("2d")
            ctx.reset()
            const w = width, h = height, pad = chart.inset
            const bottom = h - pad, usable = Math.max(1, h - 2 * pad)
            ctx.strokeStyle = chart.gridColor
            ctx.lineWidth = 1
            for (let i = 0; i <= 4; ++i) {
                const y = Math.round(pad + usable * i / 4) + 0.5
                ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(w, y); ctx.stroke()
            }
            if (!chart.hasData) return
            const step = (w - 2 * pad) / Math.max(1, chart.capacity - 1)
            const yOf = v => bottom - Math.min(1, chart.finite(v) / chart.peak) * usable
            function draw(values, color, fill) {
                const n = values ? values.length : 0
                if (n === 0) return
                // The newest sample at the right edge; those older than the plot's width left out.
                const first = Math.max(0, n - chart.capacity)
                const xOf = i => w - pad - (n - 1 - i) * step
                ctx.fillStyle = color
                // A sample with no neighbour above 0 (a reply shorter than two samples): a dot.
                for (let i = first; i < n; ++i) {
                    const alone = (i === first || chart.finite(values[i - 1]) === 0)
                               && (i === n - 1 || chart.finite(values[i + 1]) === 0)
                    if (alone && (chart.finite(values[i]) > 0 || n - first === 1)) {
                        ctx.beginPath()
                        ctx.arc(xOf(i), yOf(values[i]), pad - 1, 0, 2 * Math.PI)
                        ctx.fill()
                    }
                }
                if (n - first < 2) return
                ctx.beginPath()
                for (let i = first; i < n; ++i) {
                    if (i === first) ctx.moveTo(xOf(i), yOf(values[i])); else ctx.lineTo(xOf(i), yOf(values[i]))
                }
                ctx.strokeStyle = color
                ctx.lineWidth = 2
                ctx.lineJoin = "round"
                ctx.stroke()
                if (fill) {
                    ctx.lineTo(xOf(n - 1), bottom); ctx.lineTo(xOf(first), bottom); ctx.closePath()
                    const g = ctx.createLinearGradient(0, 0, 0, h)
                    g.addColorStop(0, Qt.rgba(color.r, color.g, color.b, 0.35))
                    g.addColorStop(1, Qt.rgba(color.r, color.g, color.b, 0.02))
                    ctx.fillStyle = g
                    ctx.fill()
                }
            }
            draw(chart.prefill, chart.prefillColor, false)
            draw(chart.decode, chart.decodeColor, true)
        }
    }
    Label {
        objectName: "rateNoData"
        visible: !chart.hasData
        anchors.centerIn: plot
        width: plot.width
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        text: qsTr("No data yet")
        color: Theme.textFaint
        font.pointSize: Theme.small
    }
    Label {
        objectName: "rateIdle"
        visible: chart.hasData && chart.largest === 0
        anchors.horizontalCenter: plot.horizontalCenter
        y: plot.y + plot.height * 0.25 // above the zero line, where the line would be
        width: plot.width
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        text: qsTr("Nothing was generated in this time")
        color: Theme.textFaint
        font.pointSize: Theme.small
    }
    onDecodeChanged: plot.requestPaint()
    onPrefillChanged: plot.requestPaint()
    onGridColorChanged: plot.requestPaint()
    onPeakChanged: plot.requestPaint()
    onCapacityChanged: plot.requestPaint()
}
