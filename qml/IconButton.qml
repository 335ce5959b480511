import QtQuick
import QtQuick.Controls

// A round, flat button showing an icon, with a tooltip.
AbstractButton {
    id: button
    property string iconPath: ""
    property string tip: ""
    property color iconColor: Theme.textMuted
    property color hoverColor: Theme.hover
    property real iconSize: 18
    implicitWidth: 34
    implicitHeight: 34
    hoverEnabled: true
    // Reached with Tab, but a click leaves the focus where it was (the composer).
    focusPolicy: Qt.TabFocus
    Accessible.role: Accessible.Button
    Accessible.name: tip
    Accessible.onPressAction: if (enabled) clicked() // Qt 6.4 exposes the action but does nothing on it

    background: Rectangle {
        radius: width / 2
        color: button.down ? Theme.selected : (button.hovered || button.checked ? button.hoverColor : "transparent")
        border.width: button.visualFocus ? 2 : 0 // reached with Tab
        border.color: Theme.accent
        Behavior on color { ColorAnimation { duration: 120 } }
    }
    contentItem: Item {
        Icon {
            anchors.centerIn: parent
            path: button.iconPath
            size: button.iconSize
            color: button.enabled ? (button.hovered || button.checked ? Theme.text : button.iconColor) : Theme.textFaint
        }
    }
    ToolTip.visible: hovered && tip.length > 0
    ToolTip.delay: 600
    ToolTip.text: tip
    // The shared tooltip keeps the text it opened with: show it again when the tip changes.
    onTipChanged: if (hovered && tip.length > 0) ToolTip.show(tip)
}
