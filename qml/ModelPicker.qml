import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The models page: the GGUF files in the models folder and those used before,
// what each is and needs, loading with progress, and the drop hint.
Item {
    id: picker
    property var models   // ModelController
    property var settings // AppSettings
    property var downloads: null // DownloadController: the catalog below the local models
    property var presets: null   // PresetController: each model's own settings (null: not offered)
    function openFile() { fileDialog.open() }

    // The platform's dialogs where its theme has them, else Hearth's own (FileBrowserPopup).
    ChooserDialog {
        id: folderDialog
        chooseFolder: true
        objectName: "modelsFolderDialog"
        title: qsTr("Choose the models folder")
        startFolderPath: picker.settings ? picker.settings.modelsFolder : ""
        // The settings decode the URL: its text keeps percent-encoding ("My%20Models").
        onAccepted: picker.settings.setModelsFolderUrl(selectedFolder)
    }
    ChooserDialog {
        id: fileDialog
        objectName: "modelFileDialog"
        title: qsTr("Open a GGUF model")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        startFolderPath: picker.settings ? picker.settings.modelsFolder : ""
        onAccepted: picker.models.loadDroppedFile(selectedFile)
    }
    // The image projector a model reads images with, chosen by hand (instead of the one beside it).
    ChooserDialog {
        id: projectorDialog
        objectName: "projectorFileDialog"
        property string modelPath
        title: qsTr("Choose the image projector (mmproj) for this model")
        nameFilters: [qsTr("GGUF files (*.gguf)"), qsTr("All files (*)")]
        startFolderPath: modelPath.length > 0 ? modelPath.substring(0, modelPath.lastIndexOf("/")) : ""
        onAccepted: picker.models.chooseImageProjector(modelPath, selectedFile)
        function openFor(path) { modelPath = path; open() }
    }
    ModelPresetDialog {
        id: presetDialog
        presets: picker.presets
    }

    ListView {
        id: list
        objectName: "modelList"
        anchors.fill: parent
        anchors.margins: 0
        clip: true
        spacing: 10
        model: picker.models ? picker.models.models : null
        ScrollBar.vertical: ScrollBar { policy: ScrollBar.AsNeeded; Accessible.name: qsTr("Scroll the models page") }
        // A header that grows while the page shows its top (the scan's rows and the loaded model's
        // card come in after the first layout) moves the list's origin up, and ListView keeps its
        // contentY: the page opened 40 px down. Whoever was at the top stays there.
        property bool showsTop: true
        onContentYChanged: showsTop = contentY <= originY + 0.5
        onOriginYChanged: if (showsTop && !moving) contentY = originY

        header: ColumnLayout {
            width: Math.min(list.width - 64, 860)
            x: (list.width - width) / 2
            spacing: 14
            Item { height: 18 }
            ColumnLayout {
                Layout.fillWidth: true
                spacing: 2
                Label { text: qsTr("Models"); font.pointSize: Theme.huge; font.weight: Font.Bold; color: Theme.text }
                Label {
                    objectName: "modelsFolderPath" // a path: cut in the middle where it is long
                    text: qsTr("Folder: %1").arg(picker.settings ? picker.settings.modelsFolder : "")
                    color: Theme.textMuted
                    font.pointSize: Theme.small
                    elide: Text.ElideMiddle
                    Layout.fillWidth: true
                }
            }
            // Under the title, and onto a second line in a narrow column (German words are long).
            Flow {
                Layout.fillWidth: true
                spacing: 8
                PillButton { iconPath: Icons.folder; text: qsTr("Change folder"); onClicked: folderDialog.open() }
                PillButton { iconPath: Icons.regenerate; text: qsTr("Rescan"); enabled: !picker.models.scanning; onClicked: picker.models.refresh() }
                PillButton { objectName: "openFileButton"; iconPath: Icons.plus; text: qsTr("Open file…"); tip: qsTr("Open a model file (Ctrl+O)"); primary: true; onClicked: fileDialog.open() }
            }

            // The loaded model, or the load under way.
            Rectangle {
                Layout.fillWidth: true
                visible: picker.models.loaded || picker.models.busy
                implicitHeight: current.implicitHeight + 32
                radius: Theme.radius
                color: Theme.accentSoft
                border.color: Theme.accent
                ColumnLayout {
                    id: current
                    anchors.fill: parent
                    anchors.margins: 16
                    spacing: 8
                    RowLayout {
                        Layout.fillWidth: true
                        Icon { path: Icons.model; size: 22; color: Theme.accent }
                        // The rest of the row: its text wraps there rather than pushing Unload out.
                        ColumnLayout {
                            Layout.fillWidth: true
                            Layout.preferredWidth: 0
                            spacing: 0
                            Label {
                                objectName: "loadedModelName"
                                text: picker.models.busy ? picker.models.stage : picker.models.modelName
                                font.pointSize: Theme.large * 0.9
                                font.weight: Font.DemiBold
                                color: Theme.text
                                wrapMode: Text.Wrap
                                Layout.fillWidth: true
                            }
                            Label {
                                text: picker.models.busy ? qsTr("Reading and checking the file…") : picker.models.modelDetails
                                color: Theme.textMuted
                                font.pointSize: Theme.small
                                wrapMode: Text.Wrap
                                Layout.fillWidth: true
                            }
                        }
                        PillButton {
                            visible: picker.models.loaded && !picker.models.busy
                            iconPath: Icons.eject
                            text: qsTr("Unload")
                            onClicked: picker.models.unload()
                        }
                    }
                    ProgressBar {
                        objectName: "loadProgress"
                        Layout.fillWidth: true
                        visible: picker.models.busy
                        indeterminate: true
                    }
                }
            }

            Rectangle {
                Layout.fillWidth: true
                visible: picker.models.errorMessage.length > 0
                implicitHeight: errorRow.implicitHeight + 24
                radius: Theme.smallRadius
                color: Theme.dangerSoft
                border.color: Theme.danger
                RowLayout {
                    id: errorRow
                    anchors.fill: parent
                    anchors.margins: 12
                    Label {
                        objectName: "modelError"
                        text: picker.models.errorMessage
                        color: Theme.text
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                    IconButton { iconPath: Icons.close; iconSize: 14; tip: qsTr("Dismiss"); onClicked: picker.models.clearError() }
                }
            }

            // The first start: the demo model shipped with the app, offered beside opening a model
            // and the catalog, and plainly called a toy.
            Rectangle {
                objectName: "demoOffer"
                Layout.fillWidth: true
                visible: picker.models.offerDemo
                implicitHeight: demoColumn.implicitHeight + 32
                radius: Theme.radius
                color: Theme.accentSoft
                border.color: Theme.accent
                ColumnLayout {
                    id: demoColumn
                    anchors.fill: parent
                    anchors.margins: 16
                    spacing: 8
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 10
                        Icon { Layout.alignment: Qt.AlignTop; path: Icons.flame; size: 22; color: Theme.accent }
                        Label {
                            objectName: "demoTitle"
                            text: qsTr("New here? Try the demo model")
                            font.pointSize: Theme.large * 0.9
                            font.weight: Font.DemiBold
                            color: Theme.text
                            // Wraps in a narrow window (German's title is longer) rather than
                            // widening the card past the page's edge.
                            wrapMode: Text.Wrap
                            Layout.fillWidth: true
                            Layout.preferredWidth: 0
                        }
                    }
                    Label {
                        objectName: "demoDescription"
                        text: qsTr("stories260K is a toy that writes short children's stories, and nothing else: "
                                   + "260 thousand parameters in a 1 MB file, shipped with Hearth so that you can "
                                   + "see how chatting works right away. For real conversations, open a model of "
                                   + "your own or download one from the catalog below.")
                        color: Theme.textMuted
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                    Flow {
                        Layout.fillWidth: true
                        spacing: 8
                        PillButton {
                            objectName: "tryDemoButton"
                            primary: true
                            iconPath: Icons.model
                            text: qsTr("Try the demo")
                            enabled: !picker.models.busy
                            Accessible.name: qsTr("Load the demo model, a toy that writes children's stories")
                            onClicked: picker.models.loadDemo()
                        }
                        PillButton {
                            objectName: "demoOpenFileButton"
                            iconPath: Icons.plus
                            text: qsTr("Open a model…")
                            tip: qsTr("Open a model file (Ctrl+O)")
                            onClicked: fileDialog.open()
                        }
                        PillButton {
                            objectName: "demoCatalogButton"
                            visible: picker.downloads !== null
                            iconPath: Icons.drop
                            text: qsTr("Browse the catalog")
                            onClicked: list.positionViewAtEnd()
                        }
                    }
                }
            }

            // Drop hint.
            Rectangle {
                Layout.fillWidth: true
                implicitHeight: 84
                radius: Theme.radius
                color: "transparent"
                border.width: 1.5
                border.color: Theme.border
                RowLayout {
                    anchors.centerIn: parent
                    width: Math.min(implicitWidth, parent.width - 24)
                    spacing: 12
                    Icon { path: Icons.drop; size: 26; color: Theme.textMuted }
                    Label {
                        text: qsTr("Drop a .gguf file anywhere on this window to load it")
                        color: Theme.textMuted
                        font.pointSize: Theme.fontSize
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                }
            }
            Label {
                visible: list.count > 0
                text: qsTr("Available models")
                font.pointSize: Theme.fontSize
                font.weight: Font.DemiBold
                color: Theme.textMuted
                Layout.topMargin: 8
            }
            Label {
                visible: list.count === 0 && !picker.models.scanning
                text: qsTr("No .gguf files in this folder yet. Put models there, or open one from anywhere.")
                color: Theme.textMuted
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Item { height: 2 }
        }

        delegate: Rectangle {
            id: card
            required property int index
            required property string path
            required property string name
            required property string architecture
            required property string quantization
            required property string parameters
            required property string fileSize
            required property string memory
            required property int contextLength
            required property bool hasChatTemplate
            required property bool recent
            required property string error
            required property string distinction // what sets it apart from models of the same name
            required property bool loaded
            required property string warning
            // With a GPU chosen in the settings: its share of the memory, and how much of the model it takes.
            required property string gpuMemory
            required property string gpuFit // "" (the CPU is chosen), "whole", "partial" or "none"
            required property string prediction // "≈ 24 tok/s on this computer, fits in memory"; empty: unknown
            required property int gpuLayers
            required property int layerCount
            required property string visionProjector // the image projector beside it; empty: it reads no images
            objectName: "modelCard_" + index
            width: Math.min(list.width - 64, 860)
            x: (list.width - width) / 2
            implicitHeight: cardLayout.implicitHeight + 28
            radius: Theme.radius
            color: cardHover.hovered ? Theme.surfaceRaised : Theme.surface
            border.color: card.loaded ? Theme.accent : Theme.border
            HoverHandler { id: cardHover }

            RowLayout {
                id: cardLayout
                anchors.fill: parent
                anchors.margins: 14
                anchors.leftMargin: 18
                spacing: 14
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: 6
                    RowLayout {
                        spacing: 8
                        Label {
                            text: card.name
                            font.pointSize: Theme.fontSize + 1.5
                            font.weight: Font.DemiBold
                            color: Theme.text
                        }
                        Badge { objectName: "modelDistinction"; visible: card.distinction.length > 0; text: card.distinction; accent: true }
                        Badge { visible: card.recent; text: qsTr("recent") }
                        Badge { visible: card.loaded; text: qsTr("loaded"); accent: true }
                        Badge {
                            objectName: "vision_" + card.index
                            visible: card.visionProjector.length > 0
                            text: qsTr("vision")
                            accent: true
                            ToolTip.visible: visionHover.hovered
                            ToolTip.text: qsTr("Reads images, with %1").arg(card.visionProjector.split("/").pop())
                            Accessible.name: qsTr("Reads images")
                            HoverHandler { id: visionHover }
                        }
                    }
                    Label {
                        objectName: "modelCardPath" // a path: cut in the middle where it is long
                        text: card.path
                        color: Theme.textFaint
                        font.pointSize: Theme.small
                        elide: Text.ElideMiddle
                        Layout.fillWidth: true
                    }
                    Flow {
                        Layout.fillWidth: true
                        visible: card.error.length === 0
                        spacing: 6
                        Badge { text: card.architecture; visible: text.length > 0 }
                        Badge { text: qsTr("%1 params").arg(card.parameters); visible: card.parameters.length > 0 }
                        Badge { text: card.quantization; visible: text.length > 0 }
                        Badge { text: qsTr("%1 ctx").arg(card.contextLength); visible: card.contextLength > 0 }
                        Badge { text: qsTr("file %1").arg(card.fileSize) }
                        Badge { text: card.gpuFit.length > 0 ? qsTr("RAM ≈ %1").arg(card.memory) : qsTr("needs ≈ %1").arg(card.memory); visible: card.memory.length > 0 }
                        Badge { objectName: "gpuMemory_" + card.index; text: qsTr("GPU ≈ %1").arg(card.gpuMemory); visible: card.gpuMemory.length > 0 }
                        Badge {
                            objectName: "gpuFit_" + card.index
                            visible: card.gpuFit.length > 0
                            accent: card.gpuFit === "whole"
                            text: card.gpuFit === "whole" ? qsTr("fits entirely on the GPU")
                                : card.gpuFit === "partial" ? qsTr("%1 of %2 layers on the GPU").arg(card.gpuLayers).arg(card.layerCount)
                                : qsTr("too large for the GPU: runs on the CPU")
                        }
                        Badge { text: card.hasChatTemplate ? qsTr("chat template") : qsTr("no template: ChatML") }
                    }
                    Label {
                        objectName: "modelPrediction_" + card.index
                        visible: card.error.length === 0 && card.prediction.length > 0
                        text: card.prediction
                        color: Theme.textMuted
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                        Layout.preferredWidth: 0 // wraps in the card's width rather than widening it
                        font.pointSize: Theme.small
                    }
                    Label {
                        visible: card.error.length > 0
                        text: card.error
                        color: Theme.danger
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                        font.pointSize: Theme.small
                    }
                    // Usable, but the user should know (e.g. an unknown pre-tokenizer).
                    Label {
                        objectName: "modelWarning_" + card.index
                        visible: card.error.length === 0 && card.warning.length > 0
                        text: card.warning
                        color: Theme.textMuted
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                        font.pointSize: Theme.small
                    }
                }
                IconButton {
                    objectName: "projectorButton_" + card.index
                    enabled: card.error.length === 0
                    iconPath: Icons.image
                    iconColor: card.visionProjector.length > 0 ? Theme.accent : Theme.textMuted
                    tip: card.visionProjector.length > 0
                         ? qsTr("Image projector: %1 (choose another)").arg(card.visionProjector.split("/").pop())
                         : qsTr("Choose an image projector (mmproj) so that this model reads images")
                    Accessible.name: qsTr("Image projector for %1").arg(card.name)
                    onClicked: projectorDialog.openFor(card.path)
                }
                IconButton {
                    objectName: "modelSettingsButton_" + card.index
                    // The model has settings of its own: the icon in the accent colour.
                    readonly property bool hasOwnSettings: picker.presets !== null
                        && (picker.presets.modelPresetRevision, picker.presets.hasModelPreset(card.path))
                    visible: picker.presets !== null
                    enabled: card.error.length === 0
                    iconPath: Icons.settings
                    iconColor: hasOwnSettings ? Theme.accent : Theme.textMuted
                    tip: hasOwnSettings ? qsTr("Model settings (its own are saved)") : qsTr("Model settings")
                    Accessible.name: qsTr("Settings for %1").arg(card.name)
                    onClicked: presetDialog.openFor(card.path, card.name)
                }
                PillButton {
                    objectName: "loadButton_" + card.index
                    visible: !card.loaded
                    enabled: card.error.length === 0 && !picker.models.busy
                    primary: true
                    text: qsTr("Load")
                    Accessible.name: qsTr("Load %1").arg(card.name)
                    onClicked: picker.models.load(card.path)
                }
            }
        }
        footer: ModelCatalog {
            objectName: "modelCatalog"
            width: Math.min(list.width - 64, 860)
            x: (list.width - width) / 2
            visible: picker.downloads !== null
            downloads: picker.downloads
        }
    }
}
