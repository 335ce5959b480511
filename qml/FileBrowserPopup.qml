import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtCore
import Qt.labs.folderlistmodel
import Hearth // TypedPath, a C++ type of this module

// Hearth's own file and folder dialog, for desktops whose platform theme has none (see
// ChooserDialog): a panel on an opaque background over a dim that blocks the page, the
// folder's path with a way up, its folders (and, choosing a file, the files that match the
// filter), and, choosing a folder, "Choose this folder" for the folder shown. Drawn with plain rectangles only: the software renderer draws no shader effects.
// A Dialog for its title alone, which screen readers announce; it draws its own header, and no
// buttons of the Dialog's.
Dialog {
    id: browser
    property bool chooseFolder: false
    property url folder                // the folder shown
    property var nameFilters: []       // as QtQuick.Dialogs': "GGUF models (*.gguf)"
    property int filterIndex: 0
    signal chosen(url url)
    signal cancelled()
    header: null
    footer: null

    // Opens on `startFolder` (the home folder when it is empty).
    function openAt(startFolder) {
        internal.chose = false
        internal.show(startFolder.toString().length > 0 ? startFolder : internal.homeUrl, "")
        open()
    }
    // Closes with no `cancelled` (the caller answers for it).
    function closeWithoutCancel() {
        internal.chose = true
        close()
    }
    function goUp() {
        if (internal.parentFolder.toString().length === 0) return
        internal.show(internal.parentFolder, folder)
    }
    function chooseShownFolder() { internal.finish(browser.folder) }
    // A folder opens; a file is chosen.
    function activate(row) {
        if (row < 0 || row >= folderModel.count) return
        if (folderModel.isFolder(row)) internal.show(folderModel.get(row, "fileUrl"), "")
        else if (!chooseFolder) internal.finish(folderModel.get(row, "fileUrl"))
    }

    QtObject {
        id: internal
        property bool chose: false
        // Going up, the folder left is the current entry, through every update of the listing
        // until the person moves: the listing can come in more than once (a file appears, or
        // the status of the folder before it arrives late) and each resets the list's current.
        property url keptCurrent
        function show(shownFolder, current) {
            keptCurrent = current
            browser.folder = shownFolder
        }
        // True when the kept entry is in the listing, and now current.
        function selectKeptCurrent() {
            const row = keptCurrent.toString().length > 0 ? folderModel.indexOf(keptCurrent) : -1
            if (row >= 0) entries.currentIndex = row
            return row >= 0
        }
        // From the URL: FolderListModel's parentFolder lags behind its folder.
        readonly property url parentFolder: {
            const text = browser.folder.toString().replace(/\/+$/, "")
            const cut = text.lastIndexOf("/")
            return text.startsWith("file:///") && text.length > 8 ? text.substring(0, Math.max(cut, 8)) : ""
        }
        readonly property url homeUrl: StandardPaths.writableLocation(StandardPaths.HomeLocation)
        readonly property bool fileSelected: !browser.chooseFolder && entries.currentIndex >= 0
                                             && entries.currentIndex < folderModel.count
                                             && !folderModel.isFolder(entries.currentIndex)
        // The local path of a file: URL, for people to read.
        function localPath(url) {
            const text = url.toString()
            return text.startsWith("file://") ? decodeURIComponent(text.substring(7)) : text
        }
        // "GGUF models (*.gguf)" -> ["*.gguf"]
        function globs(filter) {
            const match = /\(([^)]*)\)/.exec(filter || "")
            return match ? match[1].trim().split(/\s+/) : ["*"]
        }
        property string pathError: ""
        // A path typed in the path field: a folder opens, a file is chosen (choosing a file).
        function openTyped(typed) {
            const target = TypedPath.resolve(typed, browser.folder)
            if (target.kind === "folder") {
                pathError = ""
                show(target.url, "")
                entries.forceActiveFocus(Qt.OtherFocusReason)
            } else if (target.kind === "file" && !browser.chooseFolder) {
                pathError = ""
                finish(target.url)
            } else {
                pathError = target.kind === "file" ? qsTr("%1 is a file: choose a folder").arg(localPath(target.url))
                                                   : qsTr("There is no file or folder at %1").arg(localPath(target.url))
            }
        }
        function finish(url) {
            chose = true
            browser.close()
            browser.chosen(url)
        }
    }

    parent: Overlay.overlay
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 720, 720)
    height: Math.min(parent ? parent.height - 48 : 560, 560)
    modal: true
    dim: true
    focus: true
    padding: 20
    closePolicy: Popup.CloseOnEscape
    onOpened: entries.forceActiveFocus(Qt.PopupFocusReason)
    onFolderChanged: { pathField.text = internal.localPath(folder); internal.pathError = "" }
    onClosed: if (!internal.chose) browser.cancelled()

    // Opaque, with a soft edge of translucent rectangles beneath it for a shadow.
    background: Rectangle {
        objectName: "fileBrowserBackground"
        color: Theme.surface
        radius: Theme.radius
        border.color: Theme.border
        Repeater {
            model: 3
            Rectangle {
                required property int index
                z: -1
                anchors.fill: parent
                anchors.margins: -2 * (index + 1)
                anchors.topMargin: -(index + 1)
                radius: Theme.radius + 2 * (index + 1)
                color: Qt.rgba(0, 0, 0, 0.12 - 0.03 * index)
            }
        }
    }
    Overlay.modal: Rectangle {
        objectName: "fileBrowserDim"
        color: Theme.dark ? Qt.rgba(0, 0, 0, 0.6) : Qt.rgba(0, 0, 0, 0.4)
    }

    FolderListModel {
        id: folderModel
        folder: browser.folder
        showDirs: true
        showFiles: !browser.chooseFolder
        showDirsFirst: true
        showDotAndDotDot: false
        showHidden: false
        sortCaseSensitive: false
        caseSensitive: false
        nameFilters: browser.chooseFolder ? ["*"] : internal.globs(browser.nameFilters[browser.filterIndex])
        // A folder's listing starts at its first entry, or, going up, at the folder left.
        onStatusChanged: {
            if (status === FolderListModel.Ready && !internal.selectKeptCurrent())
                entries.currentIndex = count > 0 ? 0 : -1
        }
        onCountChanged: internal.selectKeptCurrent()
    }

    contentItem: ColumnLayout {
        spacing: 12

        Label {
            text: browser.title
            font.pointSize: Theme.large
            font.weight: Font.DemiBold
            color: Theme.text
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            IconButton {
                objectName: "fileBrowserUpButton"
                iconPath: Icons.arrowDown
                rotation: 180
                tip: qsTr("Up one folder (Backspace)")
                enabled: internal.parentFolder.toString().length > 0
                onClicked: browser.goUp()
            }
            PillButton {
                objectName: "fileBrowserHomeButton"
                iconPath: Icons.folder
                text: qsTr("Home")
                implicitHeight: 30
                onClicked: internal.show(internal.homeUrl, "")
            }
            // The folder shown, and where to type a path: Enter opens a folder or chooses a file.
            TextField {
                id: pathField
                objectName: "fileBrowserPath"
                Layout.fillWidth: true
                text: internal.localPath(browser.folder)
                color: Theme.text
                selectByMouse: true
                font.pointSize: Theme.fontSize
                placeholderText: qsTr("Type a path")
                placeholderTextColor: Theme.textFaint
                Accessible.name: qsTr("Folder shown, or a path to open: %1").arg(internal.localPath(browser.folder))
                background: Rectangle {
                    implicitHeight: 32
                    radius: Theme.smallRadius
                    color: Theme.window
                    border.color: pathField.activeFocus ? Theme.accent : Theme.border
                }
                leftPadding: 10
                rightPadding: 10
                onAccepted: internal.openTyped(text)
                onTextEdited: internal.pathError = ""
                Keys.onEscapePressed: event => {
                    // Back to the folder shown; a second Escape closes the dialog.
                    if (text !== internal.localPath(browser.folder)) {
                        text = internal.localPath(browser.folder)
                        internal.pathError = ""
                        event.accepted = true
                    } else {
                        event.accepted = false
                    }
                }
            }
        }
        Label {
            objectName: "fileBrowserPathError"
            visible: internal.pathError.length > 0
            text: internal.pathError
            color: Theme.danger
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        Rectangle {
            Layout.fillWidth: true
            Layout.fillHeight: true
            color: Theme.window
            radius: Theme.smallRadius
            border.color: entries.activeFocus ? Theme.accent : Theme.border

            ListView {
                id: entries
                objectName: "fileBrowserList"
                anchors.fill: parent
                anchors.margins: 4
                clip: true
                focus: true
                model: folderModel
                keyNavigationEnabled: true
                highlightMoveDuration: 0
                activeFocusOnTab: true
                ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the files") }
                Accessible.role: Accessible.List
                Accessible.name: browser.chooseFolder ? qsTr("Folders in %1").arg(internal.localPath(browser.folder))
                                                      : qsTr("Folders and files in %1").arg(internal.localPath(browser.folder))
                Keys.onReturnPressed: browser.activate(currentIndex)
                Keys.onEnterPressed: browser.activate(currentIndex)
                Keys.onPressed: event => {
                    if (event.key === Qt.Key_Backspace || (event.key === Qt.Key_Up && (event.modifiers & Qt.AltModifier))) {
                        browser.goUp()
                        event.accepted = true
                    } else {
                        internal.keptCurrent = "" // the person moves on from the folder left
                    }
                }

                delegate: Rectangle {
                    id: entry
                    required property int index
                    required property string fileName
                    required property bool fileIsDir
                    required property real fileSize
                    objectName: "fileBrowserEntry_" + fileName
                    width: ListView.view.width - 8
                    x: 4
                    height: 38
                    radius: 6
                    color: ListView.isCurrentItem ? Theme.selected : (entryHover.hovered ? Theme.hover : "transparent")
                    Accessible.role: Accessible.ListItem
                    Accessible.name: entry.fileIsDir ? qsTr("Folder %1").arg(entry.fileName) : entry.fileName
                    HoverHandler { id: entryHover }
                    TapHandler {
                        onTapped: {
                            internal.keptCurrent = ""
                            entries.currentIndex = entry.index
                            entries.forceActiveFocus()
                        }
                        onDoubleTapped: browser.activate(entry.index)
                    }
                    RowLayout {
                        anchors.fill: parent
                        anchors.leftMargin: 10
                        anchors.rightMargin: 10
                        spacing: 10
                        Icon {
                            path: entry.fileIsDir ? Icons.folder : Icons.model
                            size: 18
                            color: entry.fileIsDir ? Theme.accent : Theme.textMuted
                        }
                        Label {
                            text: entry.fileName
                            color: Theme.text
                            elide: Text.ElideMiddle
                            Layout.fillWidth: true
                        }
                        Label {
                            objectName: "fileBrowserSize_" + entry.fileName
                            visible: !entry.fileIsDir
                            // In the units of the rest of the app (MB, as the model cards say), not MiB.
                            text: Qt.locale().formattedDataSize(entry.fileSize, 2, Locale.DataSizeSIFormat)
                            color: Theme.textMuted
                            font.pointSize: Theme.small
                        }
                    }
                }
            }
            // Over the list, not in it: a list's own children lie in its content, which is empty
            // here, and the hint was drawn above the list's top, cut off.
            Label {
                objectName: "fileBrowserEmpty"
                anchors.centerIn: parent
                width: parent.width - 32
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                // A folder that is not there (a models folder not made yet) says so.
                readonly property bool missing: browser.opened && TypedPath.resolve(internal.localPath(browser.folder), "").kind !== "folder"
                visible: folderModel.count === 0 && (missing || folderModel.status === FolderListModel.Ready)
                text: missing ? qsTr("This folder does not exist. Type a path above, or go up.")
                    : browser.chooseFolder ? qsTr("No folders in here. Choose this folder, or go up.")
                    : qsTr("Nothing here matches the filter.")
                color: Theme.textMuted
            }
        }

        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            // The name filters as a row of toggles ("GGUF models", "All files").
            Repeater {
                model: browser.chooseFolder ? [] : browser.nameFilters
                PillButton {
                    required property int index
                    required property string modelData
                    objectName: "fileBrowserFilter_" + index
                    text: modelData
                    implicitHeight: 30
                    checkable: true
                    checked: browser.filterIndex === index
                    primary: checked
                    Accessible.checkable: true
                    Accessible.checked: checked
                    onClicked: {
                        browser.filterIndex = index
                        entries.forceActiveFocus(Qt.TabFocusReason) // the keyboard goes on in the list
                    }
                }
            }
            Item { Layout.fillWidth: true }
            PillButton {
                objectName: "fileBrowserCancelButton"
                text: qsTr("Cancel")
                Keys.onReturnPressed: clicked()
                Keys.onEnterPressed: clicked()
                onClicked: browser.close()
            }
            PillButton {
                objectName: browser.chooseFolder ? "chooseFolderButton" : "openChosenFileButton"
                primary: true
                text: browser.chooseFolder ? qsTr("Choose this folder") : qsTr("Open")
                tip: browser.chooseFolder ? qsTr("Use %1").arg(internal.localPath(browser.folder)) : ""
                enabled: browser.chooseFolder || internal.fileSelected
                Keys.onReturnPressed: clicked()
                Keys.onEnterPressed: clicked()
                onClicked: browser.chooseFolder ? browser.chooseShownFolder() : browser.activate(entries.currentIndex)
            }
        }
    }
}
