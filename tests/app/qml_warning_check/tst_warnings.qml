import QtQuick
import QtTest

// Not part of the Quick Test suite (tests/app/qml/): test_quick_test_warnings runs the suite's
// runner on this file alone and expects each function that makes QML warn to fail, and the
// quiet one to pass.
Item {
    id: root
    width: 200
    height: 200

    Component {
        id: unknownName
        Item { width: noSuchProperty } // a ReferenceError in a binding
    }

    Component {
        id: bindingLoop
        Item { id: looped; width: looped.height + 1; height: looped.width + 1 }
    }

    TestCase {
        name: "WarningCheck"
        when: windowShown

        function test_consoleWarning() { console.warn("a deliberate warning") }
        function test_bindingError() { unknownName.createObject(root).destroy() }
        function test_bindingLoop() { bindingLoop.createObject(root).destroy() }
        function test_quiet() { verify(true) }
    }
}
