import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The settings' MCP servers: each with how it starts, on or off, its state (why it failed) and
// its tools, each of which can be turned off; a form to add a server or change one; and how long
// a tool's call may take. Servers start when a reply first needs them, or here with "Show tools".
ColumnLayout {
    id: tools
    property var settings // AppSettings
    property var servers: null // McpServerRegistry
    property int editingRow: -1 // the server the form changes; -1: the form adds one
    property string formError: ""

    function clearForm() {
        nameField.text = ""; commandField.text = ""; argumentsField.text = ""; environmentField.text = ""
        editingRow = -1; formError = ""
    }
    function submit() {
        formError = editingRow < 0
            ? servers.addServer(nameField.text, commandField.text, argumentsField.text, environmentField.text)
            : servers.updateServer(editingRow, nameField.text, commandField.text, argumentsField.text, environmentField.text)
        if (formError.length === 0) clearForm()
    }

    Layout.fillWidth: true
    spacing: 16

    SettingRow {
        title: qsTr("Time a tool may take")
        hint: qsTr("A call that takes longer is ended, its server stopped (it may be stuck), and the reply goes on with the error.")
        SpinBox {
            objectName: "toolTimeoutSpin"
            from: 1; to: 600; editable: true
            value: tools.settings.toolTimeoutSeconds
            textFromValue: function (value) { return qsTr("%n s", "", value) }
            valueFromText: function (text) { return parseInt(text) }
            onValueModified: { tools.settings.toolTimeoutSeconds = value; value = Qt.binding(() => tools.settings.toolTimeoutSeconds) }
        }
    }

    Label {
        visible: !tools.servers || tools.servers.count === 0
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        color: Theme.textMuted
        font.pointSize: Theme.small
        text: qsTr("No MCP servers yet. An MCP server gives the model tools: files, the web, your calendar. Add one below with the command that starts it, e.g. npx -y @modelcontextprotocol/server-filesystem and a folder.")
    }

    Repeater {
        model: tools.servers
        delegate: Rectangle {
            id: server
            required property int index
            required property string name
            required property string command
            required property string arguments
            required property string environment
            required property bool enabled
            required property string status
            required property string error
            required property var tools
            objectName: "mcpServer_" + name
            Layout.fillWidth: true
            implicitHeight: serverColumn.implicitHeight + 20
            radius: Theme.smallRadius
            color: Theme.window
            border.color: Theme.border
            ColumnLayout {
                id: serverColumn
                anchors.fill: parent
                anchors.margins: 10
                spacing: 6
                RowLayout {
                    Layout.fillWidth: true
                    CheckBox {
                        objectName: "mcpServerEnabled"
                        checked: server.enabled
                        onToggled: tools.servers.setServerEnabled(server.index, checked)
                        Accessible.name: qsTr("Use the server %1").arg(server.name)
                    }
                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 0
                        Label {
                            text: server.name
                            font.weight: Font.DemiBold
                            color: Theme.text
                        }
                        Label {
                            Layout.fillWidth: true
                            text: server.command + (server.arguments.length > 0 ? " " + server.arguments : "")
                            font.family: Theme.monoFamily
                            font.pointSize: Theme.small
                            color: Theme.textMuted
                            elide: Text.ElideMiddle
                        }
                    }
                    Label {
                        objectName: "mcpServerStatus"
                        text: server.status === "ready" ? qsTr("Running") : server.status === "starting" ? qsTr("Starting\u2026")
                            : server.status === "failed" ? qsTr("Failed") : qsTr("Not started")
                        color: server.status === "failed" ? Theme.danger : server.status === "ready" ? Theme.success : Theme.textMuted
                        font.pointSize: Theme.small
                    }
                }
                Label {
                    visible: server.error.length > 0
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: server.error
                    color: Theme.danger
                    font.pointSize: Theme.small
                }
                // Its tools, known once it ran: each can be turned off.
                Flow {
                    Layout.fillWidth: true
                    spacing: 4
                    Repeater {
                        model: server.tools
                        delegate: CheckBox {
                            required property var modelData
                            objectName: "mcpTool_" + modelData.name
                            text: modelData.name
                            checked: modelData.enabled
                            enabled: server.enabled
                            ToolTip.visible: hovered && modelData.description.length > 0
                            ToolTip.text: modelData.description
                            onToggled: tools.servers.setToolEnabled(server.index, modelData.name, checked)
                        }
                    }
                }
                RowLayout {
                    spacing: 6
                    PillButton {
                        objectName: "mcpShowToolsButton"
                        visible: server.status !== "ready"
                        enabled: server.status !== "starting"
                        text: qsTr("Show tools")
                        onClicked: tools.servers.startServer(server.index)
                    }
                    PillButton {
                        objectName: "mcpEditButton"
                        iconPath: Icons.edit
                        text: qsTr("Edit")
                        onClicked: {
                            tools.editingRow = server.index
                            nameField.text = server.name; commandField.text = server.command
                            argumentsField.text = server.arguments; environmentField.text = server.environment
                            nameField.forceActiveFocus()
                        }
                    }
                    PillButton {
                        objectName: "mcpRemoveButton"
                        iconPath: Icons.trash
                        danger: true
                        text: qsTr("Remove")
                        onClicked: { if (tools.editingRow === server.index) tools.clearForm(); tools.servers.removeServer(server.index) }
                    }
                }
            }
        }
    }

    // Add a server, or change the one chosen with Edit.
    GridLayout {
        Layout.fillWidth: true
        columns: 2
        columnSpacing: 10
        rowSpacing: 6
        Label { text: qsTr("Name"); color: Theme.text }
        TextField {
            id: nameField; objectName: "mcpNameField"; Layout.fillWidth: true
            placeholderText: qsTr("e.g. files"); Accessible.name: qsTr("Server name")
        }
        Label { text: qsTr("Command"); color: Theme.text }
        TextField {
            id: commandField; objectName: "mcpCommandField"; Layout.fillWidth: true
            placeholderText: qsTr("e.g. npx"); Accessible.name: qsTr("Server command")
        }
        Label { text: qsTr("Arguments"); color: Theme.text }
        TextField {
            id: argumentsField; objectName: "mcpArgumentsField"; Layout.fillWidth: true
            placeholderText: qsTr("e.g. -y a-server ~/Documents")
            Accessible.name: qsTr("Server arguments")
        }
        Label { text: qsTr("Environment"); color: Theme.text; Layout.alignment: Qt.AlignTop }
        TextArea {
            id: environmentField; objectName: "mcpEnvironmentField"; Layout.fillWidth: true
            placeholderText: qsTr("NAME=value, one a line")
            Accessible.name: qsTr("Server environment")
            // Tab moves on to the next control, as everywhere in the window.
            Keys.onTabPressed: nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
            Keys.onBacktabPressed: nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
        }
    }
    Label {
        visible: tools.formError.length > 0
        Layout.fillWidth: true
        wrapMode: Text.Wrap
        text: tools.formError
        color: Theme.danger
        font.pointSize: Theme.small
    }
    RowLayout {
        spacing: 6
        PillButton {
            objectName: "mcpSubmitButton"
            primary: true
            iconPath: tools.editingRow < 0 ? Icons.plus : Icons.check
            text: tools.editingRow < 0 ? qsTr("Add server") : qsTr("Save server")
            enabled: nameField.text.trim().length > 0 && commandField.text.trim().length > 0
            onClicked: tools.submit()
        }
        PillButton {
            visible: tools.editingRow >= 0
            text: qsTr("Cancel")
            onClicked: tools.clearForm()
        }
    }
}
