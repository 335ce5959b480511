import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A slider with its value beside it. `value` follows the setting; moving the
// slider reports the new value through edited().
RowLayout {
    id: setting
    property real value
    property real from: 0
    property real to: 1
    property real stepSize: 0.01
    property int decimals: 2
    signal edited(real value)
    width: parent ? parent.width : 260
    spacing: 10
    Slider {
        id: slider
        objectName: "slider"
        Accessible.name: setting.Accessible.name // the setting row names the whole setting
        Layout.fillWidth: true
        from: setting.from
        to: setting.to
        stepSize: setting.stepSize
        value: setting.value
        onMoved: {
            setting.edited(value)
            value = Qt.binding(() => setting.value) // keep following the setting (Reset)
        }
    }
    Label {
        text: setting.value.toFixed(setting.decimals)
        color: Theme.text
        font.family: Theme.monoFamily
        font.pointSize: Theme.fontSize
        Layout.preferredWidth: 44
        horizontalAlignment: Text.AlignRight
    }
}
