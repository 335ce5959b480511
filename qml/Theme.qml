pragma Singleton
import QtQuick

// Colours, sizes and fonts of the whole UI, for a dark and a light theme.
QtObject {
    property bool dark: true
    property int fontSize: 11

    readonly property color window: dark ? "#15161b" : "#f7f7fa"
    readonly property color sidebar: dark ? "#1b1c22" : "#efeff4"
    readonly property color surface: dark ? "#212229" : "#ffffff"
    readonly property color surfaceRaised: dark ? "#292a33" : "#ffffff"
    readonly property color hover: dark ? "#2a2c35" : "#e6e7ee"
    readonly property color selected: dark ? "#31333e" : "#dfe0e9"
    readonly property color border: dark ? "#30323c" : "#dcdde5"
    readonly property color text: dark ? "#ececf1" : "#1c1d23"
    readonly property color textMuted: dark ? "#9a9cab" : "#62646f"
    readonly property color textFaint: dark ? "#6b6d7a" : "#9597a3"
    readonly property color accent: "#f07b3f"
    readonly property color accentHover: "#f48f58"
    readonly property color accentSoft: dark ? "#3a2a22" : "#fde8db"
    readonly property color textOnAccent: "#ffffff"
    readonly property color userBubble: dark ? "#2d2f3a" : "#eceef6"
    readonly property color code: dark ? "#111216" : "#f3f3f7"
    readonly property color codeHeader: dark ? "#1d1e25" : "#e8e8ef"
    readonly property color danger: "#e5534b"
    readonly property color dangerSoft: dark ? "#3b2224" : "#fde2e0"
    readonly property color success: "#3fb27f"
    readonly property color chartDecode: "#f07b3f"
    readonly property color chartPrefill: "#5b9cf0"

    readonly property int radius: 12
    readonly property int smallRadius: 8
    readonly property int spacing: 12
    readonly property string monoFamily: "DejaVu Sans Mono"
    readonly property real small: fontSize * 0.88
    readonly property real large: fontSize * 1.35
    readonly property real huge: fontSize * 2.1
}
