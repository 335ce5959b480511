import QtQuick
import QtTest
import Hearth

// The model picker over a real ModelController (no model loaded): the folder its dialog
// chooses (a percent-encoded URL) is stored as the folder's real path (testModels and testModelSettings come from
// a real HearthBackend on temp files).
Item {
    id: root
    width: 1000
    height: 800

    ModelPicker {
        id: picker
        anchors.fill: parent
        models: testModels
        settings: testModelSettings
    }

    TestCase {
        name: "ModelPicker"
        when: windowShown

        function test_modelsFolderDialogStoresTheLocalPath() {
            const dialog = findChild(picker, "modelsFolderDialog")
            verify(dialog !== null)
            dialog.parentWindow = root.Window.window // under Qt Quick Test it finds none itself
            dialog.open()
            tryVerify(() => dialog.opened)
            dialog.selectedFolder = "file:///tmp/My%20Models/Mod%C3%A8les%20%C3%A9t%C3%A9%20100%25%20%231%20%5BQ8%5D"
            dialog.accept()
            compare(testModelSettings.modelsFolder, "/tmp/My Models/Modèles été 100% #1 [Q8]")
        }
    }
}
