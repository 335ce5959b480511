import QtQuick
import QtQuick.Controls

// A small rounded tag ("llama", "Q4_K_M", "recent").
Rectangle {
    id: badge
    property alias text: label.text
    property bool accent: false
    implicitWidth: label.implicitWidth + 16
    implicitHeight: label.implicitHeight + 6
    radius: height / 2
    color: accent ? Theme.accent : Theme.hover
    Label {
        id: label
        anchors.centerIn: parent
        color: badge.accent ? Theme.textOnAccent : Theme.textMuted
        font.pointSize: Theme.small
    }
}
