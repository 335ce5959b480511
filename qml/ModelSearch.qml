import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The Hugging Face search on the models page: part of a name, then the GGUF
// repositories that match, each file with its size and quantization and a Download
// button. A started download joins the list of downloads below (progress, pause,
// resume, cancel) as an entry of its own.
Column {
    id: searchView
    property var downloads // DownloadController
    readonly property var results: downloads && downloads.search ? downloads.search : null
    readonly property bool busy: results !== null && results.busy

    function runSearch() {
        if (results && queryField.text.trim().length > 0) results.search(queryField.text)
    }

    spacing: 8

    Item { width: 1; height: 14 }
    Label {
        text: qsTr("Search Hugging Face")
        font.pointSize: Theme.fontSize
        font.weight: Font.DemiBold
        color: Theme.textMuted
    }
    RowLayout {
        width: searchView.width
        spacing: 8
        TextField {
            id: queryField
            objectName: "hfSearchField"
            Layout.fillWidth: true
            placeholderText: qsTr("Part of a model's name, e.g. qwen2.5 0.5b")
            maximumLength: 100
            selectByMouse: true
            Accessible.name: qsTr("Search Hugging Face for GGUF models")
            onAccepted: searchView.runSearch()
        }
        PillButton {
            objectName: "hfSearchButton"
            primary: true
            enabled: !searchView.busy && queryField.text.trim().length > 0
            text: searchView.busy ? qsTr("Searching…") : qsTr("Search")
            onClicked: searchView.runSearch()
        }
    }
    Label {
        objectName: "hfSearchError"
        visible: text.length > 0 && !searchView.busy
        width: searchView.width
        text: searchView.results ? searchView.results.error : ""
        color: Theme.textMuted
        wrapMode: Text.Wrap
    }
    Label {
        objectName: "hfSearchProblems"
        visible: text.length > 0 && !searchView.busy
        width: searchView.width
        text: searchView.results && searchView.results.problems.length > 0
              ? qsTr("Some repositories could not be listed:\n%1").arg(searchView.results.problems) : ""
        color: Theme.textFaint
        font.pointSize: Theme.small
        wrapMode: Text.Wrap
    }

    // A Repeater in a Column, not in a Layout: the model resets (see ARCHITECTURE.md).
    Repeater {
        model: searchView.results
        delegate: Column {
            id: fileRow
            required property int index
            required property string repository
            required property string fileName
            required property string fileSize
            required property string quantization
            required property string architecture
            required property bool runnable
            required property bool checksumKnown
            required property string prediction // "≈ 24 tok/s on this computer, fits in memory"; empty: unknown
            required property string downloads
            required property bool firstOfRepository

            width: searchView.width
            spacing: 4
            Label {
                visible: fileRow.firstOfRepository
                topPadding: fileRow.index > 0 ? 10 : 0
                width: parent.width
                elide: Text.ElideRight
                text: fileRow.architecture.length > 0
                      ? qsTr("%1 · %2 · %3 downloads").arg(fileRow.repository).arg(fileRow.architecture)
                            .arg(fileRow.downloads)
                      : qsTr("%1 · %2 downloads").arg(fileRow.repository).arg(fileRow.downloads)
                font.weight: Font.DemiBold
                color: Theme.text
            }
            Rectangle {
                width: parent.width
                implicitHeight: fileLayout.implicitHeight + 16
                radius: Theme.radius
                color: Theme.surface
                border.color: Theme.border
                ColumnLayout {
                    id: fileLayout
                    anchors.fill: parent
                    anchors.margins: 8
                    anchors.leftMargin: 14
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 6
                        Label {
                            Layout.fillWidth: true
                            text: fileRow.fileName
                            elide: Text.ElideMiddle
                            color: Theme.text
                        }
                        Badge { visible: fileRow.quantization.length > 0; text: fileRow.quantization }
                        Badge { visible: fileRow.fileSize.length > 0; text: fileRow.fileSize }
                        Badge { visible: !fileRow.checksumKnown; text: qsTr("no checksum") }
                        Badge { visible: !fileRow.runnable; text: qsTr("not supported") }
                        PillButton {
                            objectName: "hfDownloadButton_" + fileRow.index
                            enabled: fileRow.runnable
                            text: qsTr("Download")
                            Accessible.name: qsTr("Download %1").arg(fileRow.fileName)
                            onClicked: searchView.downloads.downloadSearchResult(fileRow.index)
                        }
                    }
                    Label {
                        objectName: "hfPrediction_" + fileRow.index
                        visible: fileRow.prediction.length > 0
                        Layout.fillWidth: true
                        Layout.preferredWidth: 0 // wraps in the row's width rather than widening it
                        wrapMode: Text.Wrap
                        font.pointSize: Theme.small
                        color: Theme.textMuted
                        text: fileRow.prediction
                    }
                }
            }
        }
    }
}
