import QtQuick
import QtTest
import Hearth

// An icon takes the colour it is given at once, also when it changes while the icon is hidden
// (a live theme switch left the Stop button's square, hidden until a reply streamed, in the old
// theme's colour: white on the dark theme's white circle), and in a button whose label sets it.
Item {
    id: root
    width: 200
    height: 100

    Rectangle { anchors.fill: parent; color: "black" }
    Icon { id: shownIcon; x: 10; y: 10; size: 48; path: Icons.stop; color: Theme.window }
    Icon { id: hiddenIcon; x: 100; y: 10; size: 48; path: Icons.stop; color: Theme.window; visible: false }
    // An icon half outside a clipping item (a reply's avatar in a scrolled list): what lies
    // outside is not drawn (the software renderer once drew icons unclipped, over the chat's title).
    Item {
        id: clipBox
        x: 150; y: 10; width: 40; height: 20
        clip: true
        Icon { id: clippedIcon; y: -24; size: 48; path: Icons.stop; color: "red" }
    }
    // An icon in a button, its colour the label's (the sidebar's "New chat"): after a theme
    // switch it kept the old theme's image, dark on the dark theme's dark background.
    Rectangle {
        y: 60; width: parent.width; height: 40; color: Theme.window
        PillButton { id: button; x: 10; y: 2; iconPath: Icons.plus; text: "New chat" }
    }

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

        function test_clippedByItsParent() {
            waitForRendering(root)
            const image = grabImage(root)
            // The stop square spans 12-36 of the icon's 48 pixels: inside the box its lower part.
            const inside = image.pixel(clipBox.x + 24, clipBox.y + 6)
            verify(inside.r > 0.9 && inside.g < 0.1, "inside: " + inside)
            const above = image.pixel(clipBox.x + 24, clipBox.y - 4)
            verify(above.r < 0.1, "above the box: " + above)
        }

        // The colour of the button icon's ink: its pixel farthest from the window's background.
        function inkColour() {
            const image = grabImage(root)
            const icon = button.contentItem.children[0].children[0]
            const p = icon.mapToItem(root, 0, 0)
            const back = Theme.window
            let ink = back, farthest = -1
            for (let x = Math.floor(p.x); x < p.x + icon.width; ++x)
                for (let y = Math.floor(p.y); y < p.y + icon.height; ++y) {
                    const c = image.pixel(x, y)
                    const d = Math.abs(c.r - back.r) + Math.abs(c.g - back.g) + Math.abs(c.b - back.b)
                    if (d > farthest) { farthest = d; ink = c }
                }
            return ink
        }
        // Within 0.2 a channel of the label's colour (antialiased strokes 2 pixels wide never
        // cover a pixel whole); the old theme's colour is 0.8 away.
        function inkIsTheLabels() {
            const ink = inkColour(), text = Theme.text // the label's, on a plain enabled button
            return Math.abs(ink.r - text.r) < 0.2 && Math.abs(ink.g - text.g) < 0.2 && Math.abs(ink.b - text.b) < 0.2
        }

        function test_aButtonsIconFollowsTheTheme() {
            const wasDark = Theme.dark
            for (const dark of [!wasDark, wasDark, !wasDark, wasDark]) {
                Theme.dark = dark
                // Drawn again within a few frames (the layer's first frame after a change is empty).
                tryVerify(inkIsTheLabels, 1000, "the icon's ink " + inkColour() + ", its label's colour " + Theme.text
                          + " (dark theme: " + dark + ")")
            }
        }
    }
}
