import QtQuick

// The prompt tokens of each of the last replies as a stacked bar: reused from the
// KV cache (bottom) and computed (top), oldest on the left. `history` is a
// ReplyCacheHistory; bars keep their width as replies are added.
Item {
    id: chart
    property var history
    property color reusedColor: Theme.success
    property color computedColor: Theme.chartPrefill
    property color gridColor: Theme.border
    readonly property int slots: history ? history.capacity : 20
    readonly property real slotWidth: width / Math.max(1, slots)

    Repeater {
        model: 3
        Rectangle {
            required property int index
            width: chart.width; height: 1
            y: Math.round(chart.height * index / 2)
            color: chart.gridColor
            opacity: 0.6
        }
    }
    Row {
        objectName: "replyBars"
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        height: parent.height
        Repeater {
            model: chart.history
            delegate: Item {
                id: bar
                objectName: "replyBar"
                required property int reused
                required property int computed
                required property bool restored
                readonly property real scale: (chart.height - 2) / Math.max(1, chart.history.peak)
                width: chart.slotWidth
                height: chart.height
                Rectangle {
                    objectName: "reusedSegment"
                    anchors.bottom: parent.bottom
                    anchors.horizontalCenter: parent.horizontalCenter
                    width: Math.max(2, bar.width - 4)
                    height: bar.reused * bar.scale
                    color: chart.reusedColor
                    radius: 1.5
                }
                Rectangle {
                    objectName: "computedSegment"
                    anchors.horizontalCenter: parent.horizontalCenter
                    y: bar.height - (bar.reused + bar.computed) * bar.scale
                    width: Math.max(2, bar.width - 4)
                    height: bar.computed * bar.scale
                    color: chart.computedColor
                    radius: 1.5
                }
                Rectangle { // a saved state brought this conversation back
                    objectName: "restoredMarker"
                    visible: bar.restored
                    anchors.horizontalCenter: parent.horizontalCenter
                    y: Math.max(0, bar.height - (bar.reused + bar.computed) * bar.scale - 6)
                    width: 4; height: 4; radius: 2
                    color: chart.reusedColor
                }
            }
        }
    }
}
