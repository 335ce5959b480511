import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One setting: its name and a hint on the left, its control on the right; in a narrow column
// (a small window, longer German words) the control goes under its name instead of off the edge.
GridLayout {
    id: row
    property string title
    property string hint
    default property alias control: holder.data
    // The control is named after the row for screen readers, unless it names itself.
    Component.onCompleted: {
        for (let i = 0; i < holder.children.length; ++i) {
            const child = holder.children[i]
            if (child.Accessible.name.length === 0) child.Accessible.name = row.title
        }
    }
    Layout.fillWidth: true
    columns: width < 480 ? 1 : 2
    columnSpacing: 16
    rowSpacing: 8
    ColumnLayout {
        // The width the control leaves: the texts wrap in it rather than widen the row.
        Layout.fillWidth: true
        Layout.preferredWidth: 0
        spacing: 2
        Label {
            text: row.title
            color: Theme.text
            font.pointSize: Theme.fontSize
            font.weight: Font.DemiBold
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            visible: row.hint.length > 0
            text: row.hint
            color: Theme.textMuted
            font.pointSize: Theme.small
            wrapMode: Text.WrapAtWordBoundaryOrAnywhere // a path has no spaces to wrap at
            Layout.fillWidth: true
        }
    }
    Item {
        id: holder
        implicitWidth: 260
        implicitHeight: childrenRect.height
        Layout.preferredWidth: 260
    }
}
