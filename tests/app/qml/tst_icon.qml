import QtQuick
import QtTest
import Hearth

// An icon takes the colour it is given at once, also when it changes while the icon is hidden
// (a live theme switch left the Stop button's square, hidden until a reply streamed, in the old
// theme's colour: white on the dark theme's white circle).
Item {
    id: root
    width: 200
    height: 100

    Rectangle { anchors.fill: parent; color: "black" }
    Icon { id: shownIcon; x: 10; y: 10; size: 48; path: Icons.stop; color: Theme.window }
    Icon { id: hiddenIcon; x: 100; y: 10; size: 48; path: Icons.stop; color: Theme.window; visible: false }

    TestCase {
        name: "Icon"
        when: windowShown

        function centreColour(icon) {
            const image = grabImage(root)
            const p = icon.mapToItem(root, icon.width / 2, icon.height / 2)
            return image.pixel(Math.round(p.x), Math.round(p.y))
        }
        function sameColour(a, b) {
            return Math.abs(a.r - b.r) < 0.02 && Math.abs(a.g - b.g) < 0.02 && Math.abs(a.b - b.b) < 0.02
        }

        function test_followsItsColourShownOrHidden() {
            const wasDark = Theme.dark
            for (const dark of [!wasDark, wasDark, !wasDark]) {
                hiddenIcon.visible = false
                waitForRendering(root)
                Theme.dark = dark
                waitForRendering(root)
                verify(sameColour(centreColour(shownIcon), Theme.window),
                       "shown: " + centreColour(shownIcon) + ", expected " + Theme.window)
                hiddenIcon.visible = true
                waitForRendering(root)
                verify(sameColour(centreColour(hiddenIcon), Theme.window),
                       "hidden then shown: " + centreColour(hiddenIcon) + ", expected " + Theme.window)
            }
            Theme.dark = wasDark
        }
    }
}
