import QtQuick
import QtQuick.Dialogs
import Hearth // PlatformDialogs, a C++ type of this module

// Chooses a file to open, or a folder (chooseFolder), with the platform's dialog where the
// platform theme provides one (GTK, the desktop portal, KDE), and with FileBrowserPopup where Qt
// would fall back to its own Qt Quick dialog (whose Material background the software renderer
// cannot draw, and whose folder dialog cannot choose the folder it shows). The API follows
// QtQuick.Dialogs' FileDialog (one file to open) and FolderDialog; `opened` stands for their
// `visible`.
Item {
    id: chooser
    property bool chooseFolder: false
    property string title
    property var nameFilters: []              // files: "GGUF models (*.gguf)", the first one chosen
    property string startFolderPath           // a local path: where the dialog opens
    property url selectedFile                 // the file chosen, once accepted
    // Several files at once, where the platform's dialog is shown (Hearth's own chooses one):
    // selectedFiles holds them all, selectedFile the first.
    property bool selectMultiple: false
    property var selectedFiles: []
    property url selectedFolder               // the folder chosen, once accepted
    property var parentWindow: chooser.Window.window
    readonly property bool opened: internal.platformDialog.visible || browser.visible
    signal accepted()
    signal rejected()

    function open() {
        if (internal.platformDialogs !== false) {
            internal.platformDialog.open()
            // Known after the first open: Qt decides when it creates the dialog.
            if (internal.platformDialogs === undefined)
                internal.platformDialogs = !PlatformDialogs.runsQtQuickImplementation(internal.platformDialog)
            if (internal.platformDialogs) return
            internal.closeQtDialog()
        }
        browser.filterIndex = 0
        browser.openAt(internal.startFolder)
    }
    // Closes with no signal, as QtQuick.Dialogs' close().
    function close() {
        internal.closeQtDialog()
        browser.closeWithoutCancel()
    }
    // Accepts `selectedFile` or `selectedFolder` as it is (for tests and callers that set it).
    function accept() {
        close()
        if (!chooser.chooseFolder && (chooser.selectedFiles.length !== 1
                                      || chooser.selectedFiles[0].toString() !== chooser.selectedFile.toString()))
            chooser.selectedFiles = [chooser.selectedFile]
        chooser.accepted()
    }
    function reject() {
        close()
        chooser.rejected()
    }

    QtObject {
        id: internal
        property var platformDialogs: undefined // true: the platform's; false: Hearth's own
        property bool closingQtDialog: false
        readonly property var platformDialog: chooser.chooseFolder ? folderDialog : fileDialog
        // Each part encoded: a path's "#" or "%" is no URL syntax.
        readonly property url startFolder: chooser.startFolderPath.length === 0 ? ""
            : "file://" + chooser.startFolderPath.split("/").map(encodeURIComponent).join("/")
        function closeQtDialog() {
            if (!platformDialog.visible) return
            closingQtDialog = true
            platformDialog.close()
            closingQtDialog = false
        }
        function choose(url) {
            if (chooser.chooseFolder)
                chooser.selectedFolder = url
            else
                chooser.selectedFile = url
            chooser.selectedFiles = chooser.chooseFolder ? [] : [url]
            chooser.accepted()
        }
        function chooseFiles(urls) {
            if (urls.length === 0) return
            chooser.selectedFile = urls[0]
            chooser.selectedFiles = urls
            chooser.accepted()
        }
        function cancelled() {
            if (!closingQtDialog) chooser.rejected()
        }
    }

    FileDialog {
        id: fileDialog
        title: chooser.title
        nameFilters: chooser.nameFilters
        currentFolder: internal.startFolder
        fileMode: chooser.selectMultiple ? FileDialog.OpenFiles : FileDialog.OpenFile
        parentWindow: chooser.parentWindow
        onAccepted: chooser.selectMultiple ? internal.chooseFiles(selectedFiles) : internal.choose(selectedFile)
        onRejected: internal.cancelled()
    }
    FolderDialog {
        id: folderDialog
        title: chooser.title
        currentFolder: internal.startFolder
        parentWindow: chooser.parentWindow
        onAccepted: internal.choose(selectedFolder)
        onRejected: internal.cancelled()
    }
    FileBrowserPopup {
        id: browser
        chooseFolder: chooser.chooseFolder
        title: chooser.title
        nameFilters: chooser.nameFilters
        onChosen: url => internal.choose(url)
        onCancelled: chooser.rejected()
    }
}
