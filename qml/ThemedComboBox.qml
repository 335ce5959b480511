import QtQuick
import QtQuick.Controls

// The settings' drop-down list. Material draws a combo box's background and its list's with a layer effect
// (ElevationEffect), which the software renderer does not draw: the box showed no
// background and its list none either, the page showing through. Plain rectangles in the
// theme's colours instead.
ComboBox {
    id: combo
    background: Rectangle {
        implicitWidth: 120
        implicitHeight: 36
        y: combo.topInset
        height: combo.height - combo.topInset - combo.bottomInset
        radius: Theme.smallRadius
        color: combo.pressed || combo.hovered ? Theme.hover : Theme.surface
        border.color: combo.visualFocus || combo.popup.visible ? Theme.accent : Theme.border
        border.width: combo.visualFocus ? 2 : 1
    }
    // Each entry in the theme's colours, the current one in the accent colour.
    delegate: Component {
        ItemDelegate {
            id: entry
            required property var modelData
            required property int index
            width: ListView.view.width
            height: 36
            text: modelData
            highlighted: combo.highlightedIndex === index
            hoverEnabled: combo.hoverEnabled
            contentItem: Label {
                text: entry.text
                verticalAlignment: Text.AlignVCenter
                color: entry.index === combo.currentIndex ? Theme.accent : Theme.text
                font.pointSize: Theme.fontSize
            }
            background: Rectangle {
                radius: Theme.smallRadius - 2
                color: entry.highlighted || entry.hovered ? Theme.selected : "transparent"
            }
        }
    }
    popup: Popup {
        objectName: combo.objectName + "Popup"
        y: combo.height - combo.bottomInset + 2
        width: combo.width
        height: Math.min(contentItem.implicitHeight + topPadding + bottomPadding,
                         combo.Window.height - topMargin - bottomMargin)
        topMargin: 12
        bottomMargin: 12
        padding: 4
        contentItem: ListView {
            clip: true
            implicitHeight: contentHeight
            model: combo.delegateModel
            currentIndex: combo.highlightedIndex
            highlightMoveDuration: 0
            ScrollIndicator.vertical: ScrollIndicator { }
        }
        // Opaque, with a soft edge of translucent rectangles beneath it for a shadow.
        background: Rectangle {
            objectName: "comboPopupBackground"
            color: Theme.surfaceRaised
            radius: Theme.smallRadius
            border.color: Theme.border
            Repeater {
                model: 2
                Rectangle {
                    required property int index
                    z: -1
                    anchors.fill: parent
                    anchors.margins: -(index + 1)
                    anchors.topMargin: 0
                    radius: Theme.smallRadius + index + 1
                    color: Qt.rgba(0, 0, 0, 0.10 - 0.04 * index)
                }
            }
        }
    }
}
