pragma Singleton
import QtQuick

// SVG path data of the icons (24 x 24 view box), drawn by Icon.qml with Qt Quick Shapes.
QtObject {
    readonly property string send: "M12 4 L4.5 11.5 L5.9 12.9 L11 7.8 V20 H13 V7.8 L18.1 12.9 L19.5 11.5 Z"
    readonly property string stop: "M7 7 H17 V17 H7 Z"
    readonly property string plus: "M11 5 H13 V11 H19 V13 H13 V19 H11 V13 H5 V11 H11 Z"
    readonly property string check: "M9.55 17.6 4.3 12.35 5.7 10.95 9.55 14.8 18.3 6.05 19.7 7.45 Z"
    readonly property string copy: "M9 8 H19 V20 H9 Z M10.6 9.6 V18.4 H17.4 V9.6 Z M5 4 H15 V6.6 H13.4 V5.6 H6.6 V15.4 H7.6 V17 H5 Z"
    readonly property string edit: "M5 16.2 L14.6 6.6 L17.4 9.4 L7.8 19 H5 Z M15.8 5.4 L17.4 3.8 L20.2 6.6 L18.6 8.2 Z"
    readonly property string regenerate: "M12 4 A8 8 0 1 0 20 12 H18 A6 6 0 1 1 12 6 V9 L16 5 L12 1 Z"
    readonly property string trash: "M6 8 H18 L17 21 H7 Z M9 3.5 H15 V5.5 H9 Z M4 5.5 H20 V7.2 H4 Z"
    readonly property string settings: "M4 6 H20 V7.6 H4 Z M4 11.2 H20 V12.8 H4 Z M4 16.4 H20 V18 H4 Z M7 4 H10 V9.6 H7 Z M14 9.2 H17 V14.8 H14 Z M9 14.4 H12 V20 H9 Z"
    readonly property string metrics: "M4 19 H20 V20.6 H4 Z M5 17 V11 H8 V17 Z M10.5 17 V5 H13.5 V17 Z M16 17 V13 H19 V17 Z"
    readonly property string model: "M12 2.5 L20.5 7.2 V16.8 L12 21.5 L3.5 16.8 V7.2 Z M12 4.8 L5.5 8.4 V15.6 L12 19.2 L18.5 15.6 V8.4 Z M11.2 11.6 H12.8 V18 H11.2 Z M6 8.9 L6.8 7.6 L12.4 10.9 L11.6 12.2 Z M17.2 7.6 L18 8.9 L12.4 12.2 L11.6 10.9 Z"
    readonly property string search: "M10 3.5 A6.5 6.5 0 1 1 10 16.5 A6.5 6.5 0 1 1 10 3.5 Z M10 5.3 A4.7 4.7 0 1 0 10 14.7 A4.7 4.7 0 1 0 10 5.3 Z M15.2 16.6 L16.6 15.2 L21 19.6 L19.6 21 Z"
    readonly property string close: "M6.4 5 L12 10.6 L17.6 5 L19 6.4 L13.4 12 L19 17.6 L17.6 19 L12 13.4 L6.4 19 L5 17.6 L10.6 12 L5 6.4 Z"
    readonly property string folder: "M3 5 H10 L12 7 H21 V19 H3 Z M4.7 8.7 V17.3 H19.3 V8.7 Z"
    readonly property string drop: "M11 3 H13 V13.2 L16.6 9.6 L18 11 L12 17 L6 11 L7.4 9.6 L11 13.2 Z M4 19 H20 V21 H4 Z"
    readonly property string flame: "M12 2 C13 6 18.5 8.5 18.5 14.5 A6.5 6.5 0 0 1 5.5 14.5 C5.5 11 7.5 9.5 8.5 7 C9.5 9 10 10 11 10.5 C11.5 8 11.5 5 12 2 Z"
    readonly property string chevronDown: "M6.4 8.6 L12 14.2 L17.6 8.6 L19 10 L12 17 L5 10 Z"
    readonly property string chevronLeft: "M15.4 6.4 L9.8 12 L15.4 17.6 L14 19 L7 12 L14 5 Z"
    readonly property string chevronRight: "M8.6 6.4 L14.2 12 L8.6 17.6 L10 19 L17 12 L10 5 Z"
    readonly property string arrowDown: "M11 4 H13 V16.2 L18.1 11.1 L19.5 12.5 L12 20 L4.5 12.5 L5.9 11.1 L11 16.2 Z"
    readonly property string eject: "M12 5 L19 13 H5 Z M5 16 H19 V18.5 H5 Z"
    // A framed picture (hills and a sun): images in messages, attaching one.
    readonly property string image: "M3.5 5 H20.5 V19 H3.5 Z M5.1 6.6 V17.4 H18.9 V6.6 Z M6.5 16 L10 11.2 L12.7 14.4 L14.6 12.4 L17.5 16 Z M15.5 7.8 A1.6 1.6 0 1 1 15.5 11 A1.6 1.6 0 1 1 15.5 7.8 Z"
    readonly property string sidebar: "M3 5 H21 V19 H3 Z M4.6 6.6 V17.4 H9 V6.6 Z M10.6 6.6 V17.4 H19.4 V6.6 Z"
}
