import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The catalog of recommended models on the models page: what each is, whether
// this engine and this computer can run it, and its download (progress with
// speed and time left, pause, resume, cancel). A finished file joins the list above.
// The Hugging Face search comes first; the files it downloads join this list.
Column {
    id: catalogView
    property var downloads // DownloadController

    spacing: 10

    ModelSearch {
        objectName: "modelSearch"
        width: catalogView.width
        downloads: catalogView.downloads
    }
    Item { width: 1; height: 14 }
    Label {
        text: qsTr("Download a model")
        font.pointSize: Theme.fontSize
        font.weight: Font.DemiBold
        color: Theme.textMuted
    }
    Label {
        width: catalogView.width
        text: catalogView.downloads && catalogView.downloads.physicalMemory.length > 0
              ? qsTr("Files go to the models folder. This computer has %1 of memory.")
                    .arg(catalogView.downloads.physicalMemory)
              : qsTr("Files go to the models folder.")
        color: Theme.textFaint
        font.pointSize: Theme.small
        wrapMode: Text.Wrap
    }
    Label {
        objectName: "catalogError"
        visible: text.length > 0
        width: catalogView.width
        text: catalogView.downloads ? catalogView.downloads.catalogError : ""
        color: Theme.danger
        wrapMode: Text.Wrap
    }

    // A Repeater in a Column, not in a Layout: the model resets (see ARCHITECTURE.md).
    Repeater {
        model: catalogView.downloads ? catalogView.downloads.catalog : null
        delegate: CatalogEntryCard {
            width: catalogView.width
            downloads: catalogView.downloads
        }
    }
    Item { width: 1; height: 24 }
}
