import QtQuick
import QtQuick.Controls
import QtTest
import Hearth

// The shared buttons' tooltips follow their tip while the pointer rests on them (a shared
// tooltip that kept the text it opened with showed "Stop generating" over a Send button): changed
// while shown, it shows the new text; changed while it waits to open, it opens with the new one;
// an empty tip hides it.
Item {
    id: root
    width: 400
    height: 200

    IconButton { id: iconButton; x: 40; y: 100; iconPath: Icons.close; tip: "First" }
    PillButton { id: pillButton; x: 200; y: 100; text: "Pill"; tip: "First" }

    TestCase {
        name: "Buttons"
        when: windowShown

        function init() {
            iconButton.tip = "First"
            pillButton.tip = "First"
            mouseMove(root, 5, 5)
            tryVerify(() => !iconButton.ToolTip.toolTip.visible, 10000)
        }

        function tooltipFollows(button) {
            const tip = button.ToolTip.toolTip // the one shared tooltip
            mouseMove(button, button.width / 2, button.height / 2)
            tryVerify(() => tip.visible, 10000)
            compare(tip.text, "First")
            button.tip = "Second"
            tryVerify(() => tip.visible && tip.text === "Second", 10000, "still " + tip.text)
            // Changed while the tooltip waits to open: it opens with the new text.
            mouseMove(root, 5, 5)
            tryVerify(() => !tip.visible, 10000)
            mouseMove(button, button.width / 2, button.height / 2)
            button.tip = "Third"
            tryVerify(() => tip.visible, 10000)
            compare(tip.text, "Third")
            // No tip, no tooltip.
            button.tip = ""
            tryVerify(() => !tip.visible, 10000)
            mouseMove(root, 5, 5)
        }

        function test_iconButtonTooltipFollowsItsTip() { tooltipFollows(iconButton) }
        function test_pillButtonTooltipFollowsItsTip() { tooltipFollows(pillButton) }
    }
}
