import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A tool's result under the call it answers, collapsed to one line until opened; an error (the
// tool's, a server that failed, a call denied) in the danger colour.
Rectangle {
    id: view
    required property var result // {server, tool, function, isError, truncated}
    required property string content
    property bool expanded: false
    objectName: "toolResult"
    implicitHeight: column.implicitHeight + 16
    radius: Theme.smallRadius
    color: result.isError ? Theme.dangerSoft : Theme.code
    border.color: Theme.border

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6
        RowLayout {
            Layout.fillWidth: true
            spacing: 6
            IconButton {
                objectName: "toolResultToggle"
                iconPath: view.expanded ? Icons.chevronDown : Icons.chevronRight
                tip: view.expanded ? qsTr("Hide the result") : qsTr("Show the result")
                iconSize: 14; implicitWidth: 24; implicitHeight: 24
                onClicked: view.expanded = !view.expanded
            }
            Label {
                objectName: "toolResultTitle"
                Layout.fillWidth: true
                text: (view.result.isError ? qsTr("Error from %1 \u203a %2") : qsTr("Result of %1 \u203a %2"))
                          .arg(view.result.server || qsTr("no server")).arg(view.result.tool)
                      + (view.result.truncated ? " " + qsTr("(cut to fit)") : "")
                color: view.result.isError ? Theme.danger : Theme.textMuted
                font.pointSize: Theme.small
                elide: Text.ElideRight
            }
        }
        // The first line while collapsed, all of it when opened.
        TextEdit {
            objectName: "toolResultText"
            Layout.fillWidth: true
            text: view.expanded ? view.content : view.content.split("\n")[0]
            textFormat: TextEdit.PlainText
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            font.family: Theme.monoFamily
            font.pointSize: Theme.small
            color: view.result.isError ? Theme.danger : Theme.text
            selectionColor: Theme.accent
        }
    }
}
