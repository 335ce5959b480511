import QtQuick
import QtQuick.Controls

// Tokens per second over the last samples: decode (filled line) and prefill (line), drawn on a
// Canvas, with its scale (tokens/s at the top grid line, 0 at the bottom) on the left and the
// time span it covers underneath.
Item {
    id: chart
    property var decode: []
    property var prefill: []
    property color decodeColor: Theme.chartDecode
    property color prefillColor: Theme.chartPrefill
    property color gridColor: Theme.border
    property int capacity: 120      // samples across the whole width
    property real spanSeconds: 30   // the time those samples cover
    readonly property real peak: {
        let m = 1
        for (const v of decode) m = Math.max(m, v)
        for (const v of prefill) m = Math.max(m, v)
        return niceCeiling(m)
    }
    function niceCeiling(v) {
        const p = Math.pow(10, Math.floor(Math.log10(v)))
        for (const s of [1, 2, 5, 10]) if (v <= s * p) return s * p
        return 10 * p
    }
    function spanText(seconds) {
        return seconds >= 90 ? qsTr("last %1 min").arg(Math.round(seconds / 60))
                             : qsTr("last %1 s").arg(Math.round(seconds))
    }
    implicitHeight: 110

    Column {
        id: axis
        anchors.left: parent.left
        anchors.top: parent.top
        anchors.bottom: span.top
        Label {
            id: axisTop
            objectName: "rateAxisTop"
            text: Number(chart.peak).toLocaleString(Qt.locale(), 'f', 0)
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
        anchors.right: axis.right
        anchors.bottom: span.top
        anchors.bottomMargin: -height / 2
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
        anchors.left: axis.right
        anchors.leftMargin: 6
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.topMargin: axisTop.height / 2
        anchors.bottom: span.top
        anchors.bottomMargin: 2
        onWidthChanged: requestPaint()
        onHeightChanged: requestPaint()

        onPaint: {
            const ctx = getContext("2d")
            ctx.reset()
            const w = width, h = height
            ctx.strokeStyle = chart.gridColor
            ctx.lineWidth = 1
            for (let i = 0; i <= 4; ++i) {
                const y = Math.round((h - 1) * i / 4) + 0.5
                ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(w, y); ctx.stroke()
            }
            function draw(values, color, fill) {
                if (values.length < 2) return
                const step = w / (chart.capacity - 1)
                const x0 = w - (values.length - 1) * step
                ctx.beginPath()
                for (let i = 0; i < values.length; ++i) {
                    const x = x0 + i * step, y = h - (values[i] / chart.peak) * (h - 1)
                    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y)
                }
                ctx.strokeStyle = color
                ctx.lineWidth = 2
                ctx.lineJoin = "round"
                ctx.stroke()
                if (fill) {
                    ctx.lineTo(w, h); ctx.lineTo(x0, h); ctx.closePath()
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
    onDecodeChanged: plot.requestPaint()
    onPrefillChanged: plot.requestPaint()
    onGridColorChanged: plot.requestPaint()
}
