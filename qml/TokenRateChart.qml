import QtQuick

// Tokens per second over the last samples: decode (filled line) and prefill (line), drawn on a Canvas.
Canvas {
    id: chart
    property var decode: []
    property var prefill: []
    property color decodeColor: Theme.chartDecode
    property color prefillColor: Theme.chartPrefill
    property color gridColor: Theme.border
    property int capacity: 120
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
    onDecodeChanged: requestPaint()
    onPrefillChanged: requestPaint()
    onWidthChanged: requestPaint()
    onHeightChanged: requestPaint()
    onGridColorChanged: requestPaint()

    onPaint: {
        const ctx = getContext("2d")
        ctx.reset()
        const w = width, h = height
        ctx.strokeStyle = gridColor
        ctx.lineWidth = 1
        for (let i = 0; i <= 4; ++i) {
            const y = Math.round(h * i / 4) + 0.5
            ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(w, y); ctx.stroke()
        }
        function plot(values, color, fill) {
            if (values.length < 2) return
            const step = w / (capacity - 1)
            const x0 = w - (values.length - 1) * step
            ctx.beginPath()
            for (let i = 0; i < values.length; ++i) {
                const x = x0 + i * step, y = h - (values[i] / peak) * (h - 4)
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
        plot(prefill, prefillColor, false)
        plot(decode, decodeColor, true)
    }
}
