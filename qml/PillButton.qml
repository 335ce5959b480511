import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A rounded button with an optional icon; `primary` fills it with the accent colour.
AbstractButton {
    id: button
    property string iconPath: ""
    property bool primary: false
    property bool danger: false
    hoverEnabled: true
    implicitHeight: 36
    implicitWidth: content.implicitWidth + 28
    focusPolicy: Qt.StrongFocus

    background: Rectangle {
        radius: height / 2
        color: !button.enabled ? Theme.hover
             : button.primary ? (button.hovered ? Theme.accentHover : Theme.accent)
             : button.danger ? (button.hovered ? Theme.dangerSoft : "transparent")
             : (button.hovered ? Theme.hover : "transparent")
        border.width: button.primary ? 0 : 1
        border.color: button.danger ? Theme.danger : Theme.border
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
