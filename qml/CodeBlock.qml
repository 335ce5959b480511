import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A fenced code block of a reply: monospace, selectable, with a copy button.
Rectangle {
    id: block
    property string code
    property string language
    signal copyRequested(string text)

    radius: 10
    color: Theme.code
    border.width: 1
    border.color: Theme.border
    implicitHeight: column.implicitHeight
    clip: true

    ColumnLayout {
        id: column
        anchors.left: parent.left
        anchors.right: parent.right
        spacing: 0
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: 34
            color: Theme.codeHeader
            radius: 10
            Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 10; color: parent.color }
            RowLayout {
                anchors.fill: parent
                anchors.leftMargin: 14
                anchors.rightMargin: 6
                Label {
                    objectName: "codeLanguage"
                    text: block.language.length > 0 ? block.language : qsTr("code")
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                    font.family: Theme.monoFamily
                    Layout.fillWidth: true
                }
                AbstractButton {
                    id: copyButton
                    objectName: "codeCopyButton"
                    property bool copied: false
                    hoverEnabled: true
                    implicitHeight: 26
                    implicitWidth: copyRow.implicitWidth + 16
                    Accessible.role: Accessible.Button
                    Accessible.name: qsTr("Copy the code")
                    Accessible.onPressAction: if (enabled) clicked()
                    onClicked: { block.copyRequested(block.code); copied = true; resetTimer.restart() }
                    Timer { id: resetTimer; interval: 1500; onTriggered: copyButton.copied = false }
                    background: Rectangle { radius: 6; color: copyButton.hovered ? Theme.hover : "transparent" }
                    contentItem: Item {
                        RowLayout {
                            id: copyRow
                            anchors.centerIn: parent
                            spacing: 4
                            Icon { path: Icons.copy; size: 14; color: Theme.textMuted }
                            Label {
                                text: copyButton.copied ? qsTr("Copied") : qsTr("Copy")
                                color: Theme.textMuted
                                font.pointSize: Theme.small
                            }
                        }
                    }
                }
            }
        }
        TextEdit {
            objectName: "codeText"
            Layout.fillWidth: true
            Layout.margins: 14
            text: block.code
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            textFormat: TextEdit.PlainText
            font.family: Theme.monoFamily
            font.pointSize: Theme.fontSize - 0.5
            color: Theme.text
            selectionColor: Theme.accent
        }
    }
}
