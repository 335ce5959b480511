import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A rounded button with an optional icon; `primary` fills it with the accent colour.
AbstractButton {
    id: button
    property string iconPath: ""
    property bool primary: false
    property bool danger: false
    property string tip: "" // a tooltip, with the control's shortcut where it has one
    hoverEnabled: true
    implicitHeight: 36
    implicitWidth: content.implicitWidth + 28
    focusPolicy: Qt.StrongFocus
    Accessible.role: Accessible.Button
    Accessible.name: text
    Accessible.description: tip
    Accessible.onPressAction: if (enabled) clicked() // Qt 6.4 exposes the action but does nothing on it
    ToolTip.visible: hovered && tip.length > 0
    ToolTip.delay: 600
    ToolTip.text: tip
    // The shared tooltip keeps the text it opened with: show it again when the tip changes.
    onTipChanged: if (hovered && tip.length > 0) ToolTip.show(tip)

    background: Rectangle {
        radius: height / 2
        color: !button.enabled ? Theme.hover
             : button.primary ? (button.hovered ? Theme.accentHover : Theme.accent)
             : button.danger ? (button.hovered ? Theme.dangerSoft : "transparent")
             : (button.hovered ? Theme.hover : "transparent")
        border.width: button.visualFocus ? 2 : button.primary ? 0 : 1
        border.color: button.visualFocus ? (button.primary ? Theme.text : Theme.accent)
                    : button.danger ? Theme.danger : Theme.border
        Behavior on color { ColorAnimation { duration: 120 } }
    }
    contentItem: Item {
        RowLayout {
            id: content
            anchors.centerIn: parent
            spacing: 6
            Icon {
                visible: button.iconPath.length > 0
                path: button.iconPath
                size: 16
                color: label.color
            }
            Label {
                id: label
                text: button.text
                font.pointSize: Theme.fontSize
                font.weight: Font.DemiBold
                color: !button.enabled ? Theme.textFaint
                     : button.primary ? Theme.textOnAccent : (button.danger ? Theme.danger : Theme.text)
            }
        }
    }
}
