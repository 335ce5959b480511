import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One function call of a reply: the MCP server and tool it runs, the arguments the model gave,
// and what became of it. While it waits, the user answers: Allow once, Always allow, or Deny.
Rectangle {
    id: card
    required property string messageId
    required property var call // {id, server, tool, function, arguments, status}
    signal answered(string messageId, string callId, string decision)

    readonly property bool waiting: call.status === "pending"
    objectName: "toolCallCard"
    implicitHeight: column.implicitHeight + 20
    radius: Theme.smallRadius
    color: Theme.surfaceRaised
    border.color: waiting ? Theme.accent : Theme.border
    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Tool call: %1 of %2").arg(call.tool).arg(call.server || qsTr("no server"))

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 10
        spacing: 6
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Icon { path: Icons.settings; size: 15; color: Theme.textMuted }
            Label {
                objectName: "toolCallTitle"
                Layout.fillWidth: true
                text: card.call.server ? qsTr("%1 \u203a %2").arg(card.call.server).arg(card.call.tool) : card.call.tool
                font.pointSize: Theme.fontSize
                font.weight: Font.DemiBold
                color: Theme.text
                elide: Text.ElideRight
            }
            Label {
                objectName: "toolCallStatus"
                text: card.call.status === "pending" ? qsTr("Waiting for you")
                    : card.call.status === "running" ? qsTr("Running\u2026")
                    : card.call.status === "done" ? qsTr("Done")
                    : card.call.status === "denied" ? qsTr("Denied")
                    : qsTr("Failed")
                color: card.call.status === "failed" ? Theme.danger : Theme.textMuted
                font.pointSize: Theme.small
            }
        }
        Text {
            objectName: "toolCallArguments"
            Layout.fillWidth: true
            text: card.call.arguments
            textFormat: Text.PlainText
            wrapMode: Text.WrapAnywhere
            maximumLineCount: 12
            elide: Text.ElideRight
            font.family: Theme.monoFamily
            font.pointSize: Theme.small
            color: Theme.textMuted
        }
        RowLayout {
            visible: card.waiting
            spacing: 6
            PillButton {
                objectName: "allowOnceButton"
                primary: true
                text: qsTr("Allow once")
                onClicked: card.answered(card.messageId, card.call.id, "once")
            }
            PillButton {
                objectName: "alwaysAllowButton"
                text: qsTr("Always allow")
                tip: qsTr("Run %1 of %2 without asking from now on").arg(card.call.tool).arg(card.call.server)
                onClicked: card.answered(card.messageId, card.call.id, "always")
            }
            PillButton {
                objectName: "denyButton"
                danger: true
                text: qsTr("Deny")
                onClicked: card.answered(card.messageId, card.call.id, "deny")
            }
        }
    }
}
