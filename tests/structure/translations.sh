#!/usr/bin/env bash
# The German translation against the sources: lupdate reads every tr()/qsTr() in app/ and qml/.
#   tests/structure/translations.sh check    fails, naming them, if a string has no translation
#   tests/structure/translations.sh update   writes new strings into hearth_de.ts (unfinished),
#                                            and drops those no longer in the sources
# (ctest runs `check`, test translations_complete). LUPDATE names the tool if it is not on PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-check}
lupdate=${LUPDATE:-$(command -v lupdate || echo /usr/lib/qt6/bin/lupdate)}
qt_include=$(dirname "$(find /usr/include -maxdepth 3 -type d -name QtCore -path '*qt6*' | head -1)")
ts=$root/resources/translations/hearth_de.ts
sources=(qml app/chat app/models app/storage app/server app/download app/platform app/tools app/settings app/metrics app/gui)
run_lupdate() {
    (cd "$root" && "$lupdate" -silent -no-obsolete -locations none -I . -I "$qt_include" -I "$qt_include/QtCore" \
        "${sources[@]}" -ts "$1")
}
case $mode in
update)
    run_lupdate "$ts"
    echo "translate the entries marked unfinished in $ts"
    ;;
check)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp "$ts" "$work/hearth_de.ts"
    run_lupdate "$work/hearth_de.ts" >/dev/null
    missing=$(grep -c 'type="unfinished"' "$work/hearth_de.ts" || true)
    if [ "$missing" -ne 0 ]; then
        echo "$missing string(s) of the sources have no German translation in resources/translations/hearth_de.ts:" >&2
        grep -B2 'type="unfinished"' "$work/hearth_de.ts" | grep -o '<source>.*</source>' | sed 's/<[^>]*>//g; s/^/  /' >&2
        echo "(tests/structure/translations.sh update adds them to the file, to be translated there)" >&2
        exit 1
    fi
    echo "every string of the sources has its German translation"
    ;;
*)
    echo "usage: tests/structure/translations.sh check|update" >&2
    exit 2
    ;;
esac
