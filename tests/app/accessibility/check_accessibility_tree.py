#!/usr/bin/python3
"""The real app's accessibility tree, as a screen reader sees it over AT-SPI.

Starts Hearth (the binary given) with a fresh home, walks its tree on every page, loads the demo
model, sends a message, and opens the delete dialog, with assistive technology's own means
(actions and editable text, never the mouse). Fails on any focusable control without a name,
on a page switcher that cannot be activated, and on a window or dialog without a title.
Run it under a session bus and an X server:
    xvfb-run -a dbus-run-session -- /usr/bin/python3 check_accessibility_tree.py HEARTH
"""
import os
import subprocess
import sys
import tempfile
import time

import pyatspi
from gi.repository import GLib

# The roles a user operates: each needs a name a screen reader can speak.
CONTROL_ROLES = {
    pyatspi.ROLE_PUSH_BUTTON,
    pyatspi.ROLE_TOGGLE_BUTTON,
    pyatspi.ROLE_CHECK_BOX,
    pyatspi.ROLE_RADIO_BUTTON,
    pyatspi.ROLE_COMBO_BOX,
    pyatspi.ROLE_SPIN_BUTTON,
    pyatspi.ROLE_SLIDER,
    pyatspi.ROLE_TEXT,
    pyatspi.ROLE_ENTRY,
    pyatspi.ROLE_PASSWORD_TEXT,
    pyatspi.ROLE_LIST_ITEM,
    pyatspi.ROLE_PAGE_TAB,
    pyatspi.ROLE_MENU_ITEM,
    pyatspi.ROLE_LINK,
    pyatspi.ROLE_SCROLL_BAR,
}
WINDOW_ROLES = {pyatspi.ROLE_FRAME, pyatspi.ROLE_DIALOG, pyatspi.ROLE_ALERT, pyatspi.ROLE_WINDOW}
TIMEOUT_S = 60


class Failures:
    def __init__(self):
        self.items = []
        self.controls_checked = 0
        self.nodes_walked = 0
        self.windows_checked = 0

    def add(self, where, what):
        self.items.append(f"{where}: {what}")


def pump_events():
    """Delivers the AT-SPI events that arrived to the listeners registered."""
    context = GLib.MainContext.default()
    while context.pending():
        context.iteration(False)


def wait_for(condition, what, timeout=TIMEOUT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        pump_events()
        result = condition()
        if result:
            return result
        time.sleep(0.2)
    raise TimeoutError(f"gave up after {timeout} s waiting for {what}")


def find_app(name):
    def look():
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            child = desktop.getChildAtIndex(i)
            if child is not None and child.name == name and child.childCount > 0:
                return child
        return None

    return wait_for(look, f"the application {name!r} on the accessibility bus")


def nodes(node):
    yield node
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            yield from nodes(child)


def showing(node):
    return node.getState().contains(pyatspi.STATE_SHOWING)


def describe(node):
    return f"{node.getRoleName()} {node.name!r} (description {node.description!r})"


def check_tree(app, page, failures):
    """Every showing, focusable control has a name; every showing window or dialog a title."""
    for node in nodes(app):
        failures.nodes_walked += 1
        if not showing(node):
            continue
        role = node.getRole()
        if role in WINDOW_ROLES:
            failures.windows_checked += 1
            if not node.name.strip():
                failures.add(page, f"a {node.getRoleName()} without a title")
        if role in CONTROL_ROLES and node.getState().contains(pyatspi.STATE_FOCUSABLE):
            failures.controls_checked += 1
            if not node.name.strip():
                parent = node.parent
                failures.add(page, f"a {node.getRoleName()} without a name, in {describe(parent)}")


def find(app, role, name, must_show=True):
    for node in nodes(app):
        if node.getRole() == role and node.name == name and (showing(node) or not must_show):
            return node
    return None


def showing_dialog(app):
    return next((n for n in nodes(app)
                 if n.getRole() in (pyatspi.ROLE_DIALOG, pyatspi.ROLE_ALERT) and showing(n)), None)


def action_names(node):
    try:
        actions = node.queryAction()
    except NotImplementedError:
        return []
    return [actions.getName(i) for i in range(actions.nActions)]


def press(node, where, failures):
    """Activates a control as a screen reader does: its press action."""
    names = action_names(node)
    for wanted in ("Press", "press", "Toggle", "toggle"):
        if wanted in names:
            node.queryAction().doAction(names.index(wanted))
            return True
    failures.add(where, f"{describe(node)} cannot be activated (its actions: {names})")
    return False


def start_x_server():
    """An Xvfb of its own on a display it picks itself (-displayfd): no race with other tests."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24",
                               "-nolisten", "tcp"], pass_fds=(write_end,), stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        display = pipe.readline().strip()
    if not display:
        raise RuntimeError("Xvfb did not start")
    return server, f":{display}"


def type_text(text):
    for character in text:
        pyatspi.Registry.generateKeyboardEvent(0, character, pyatspi.KEY_STRING)


def main():
    hearth = sys.argv[1]
    x_server, display = start_x_server()
    # The accessibility registry, started on demand by the session bus, types the keys below
    # through this display.
    subprocess.run(["dbus-update-activation-environment", f"DISPLAY={display}"], check=True)
    failures = Failures()
    with tempfile.TemporaryDirectory(prefix="hearth-a11y-") as home:
        env = dict(os.environ)
        env.update(
            HOME=home,
            XDG_CONFIG_HOME=f"{home}/config",
            XDG_DATA_HOME=f"{home}/data",
            XDG_CACHE_HOME=f"{home}/cache",
            XDG_STATE_HOME=f"{home}/state",
            QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1",
            QT_ACCESSIBILITY="1",
            LC_ALL="C.UTF-8",
            LANGUAGE="en",
            DISPLAY=display,
        )
        env.pop("XAUTHORITY", None)
        # The accessibility bus and its registry up before the app asks for them.
        pyatspi.Registry.getDesktop(0)
        app_process = subprocess.Popen([hearth], env=env)
        try:
            app = find_app("Hearth")
            frame = wait_for(
                lambda: next((n for n in nodes(app) if n.getRole() == pyatspi.ROLE_FRAME), None),
                "the main window")
            wait_for(lambda: find(app, pyatspi.ROLE_PUSH_BUTTON, "New chat"), "the sidebar")

            check_tree(app, "first start", failures)
            # Models last: the demo model is loaded from there.
            for label in ("Engine metrics", "Settings", "Models"):
                item = next((n for n in nodes(app)
                             if n.getRole() in (pyatspi.ROLE_LIST_ITEM, pyatspi.ROLE_PAGE_TAB,
                                                pyatspi.ROLE_PUSH_BUTTON)
                             and n.name == label and showing(n) and n.parent == frame), None)
                if item is None:
                    failures.add("sidebar", f"no control named {label!r}")
                    continue
                if press(item, "sidebar", failures):
                    time.sleep(0.5)  # the page's transition; the walk below waits for nothing
                    check_tree(app, f"the {label} page", failures)

            # The file dialog, opened from the Models page, then closed with its Cancel button.
            open_file = wait_for(lambda: find(app, pyatspi.ROLE_PUSH_BUTTON, "Open file…"),
                                 "the Models page's Open file… button")
            if press(open_file, "Models page", failures):
                dialog = wait_for(lambda: showing_dialog(app), "the file dialog")
                check_tree(app, "the file dialog", failures)
                cancel = next((n for n in nodes(dialog)
                               if n.getRole() == pyatspi.ROLE_PUSH_BUTTON and n.name == "Cancel"), None)
                if cancel is None or not press(cancel, "the file dialog", failures):
                    failures.add("the file dialog", "no Cancel button a screen reader can press")
                else:
                    wait_for(lambda: not showing_dialog(app), "the file dialog to close")

            # The demo model, a message, its reply: the chat page with a conversation in it.
            demo = wait_for(lambda: next((n for n in nodes(app)
                                          if n.getRole() == pyatspi.ROLE_PUSH_BUTTON
                                          and n.name.startswith("Load the demo model")
                                          and showing(n)), None),
                            "the demo model's button on the Models page")
            press(demo, "Models page", failures)
            composer = wait_for(
                lambda: next((n for n in nodes(app)
                              if n.getRole() == pyatspi.ROLE_TEXT and n.name == "Message"
                              and showing(n)
                              and n.getState().contains(pyatspi.STATE_ENABLED)), None),
                "the composer, enabled once the demo model loaded")
            # Typed, as a screen reader's user does: Qt Quick's text fields have no editable-text
            # interface over AT-SPI.
            composer.queryAction().doAction(action_names(composer).index("SetFocus"))
            wait_for(lambda: composer.getState().contains(pyatspi.STATE_FOCUSED), "the composer's focus")
            type_text("Tell me a story about a cat.")
            wait_for(lambda: "cat" in composer.queryText().getText(0, -1), "the typed message")
            send = wait_for(lambda: find(app, pyatspi.ROLE_PUSH_BUTTON, "Send"), "the Send button")
            announcements = []

            def on_showing(event):
                source = event.source
                if source is not None and source.getRole() == pyatspi.ROLE_NOTIFICATION and event.detail1:
                    announcements.append(source.name)

            pyatspi.Registry.registerEventListener(on_showing, "object:state-changed:showing")
            press(send, "chat page", failures)
            # The reply's actions are there while it streams, disabled; enabled once it finished.
            # The engine's threads yield to everything else on a busy machine (ctest runs two tests
            # at once on two cores): the reply may take a while.
            wait_for(lambda: (button := find(app, pyatspi.ROLE_PUSH_BUTTON, "Regenerate")) is not None
                     and button.getState().contains(pyatspi.STATE_ENABLED),
                     "the reply's Regenerate button, enabled once the reply finished")
            wait_for(lambda: announcements, "the finished reply's announcement", timeout=10)
            pyatspi.Registry.deregisterEventListener(on_showing, "object:state-changed:showing")
            print(f"announcements of the reply: {len(announcements)}: {announcements[0][:60]!r}…")
            if len(announcements) != 1 or not announcements[0].startswith("Reply: ") \
                    or len(announcements[0]) <= len("Reply: "):
                failures.add("chat page", f"the reply was announced as {announcements}, not once with its text")
            check_tree(app, "chat page with a reply", failures)

            delete = next((n for n in nodes(app)
                           if n.getRole() == pyatspi.ROLE_PUSH_BUTTON
                           and n.name.startswith("Delete")), None)
            if delete is None:
                failures.add("sidebar", "no Delete button for the chat")
            elif press(delete, "sidebar", failures):
                wait_for(lambda: showing_dialog(app), "the delete dialog")
                check_tree(app, "the delete dialog", failures)
        finally:
            app_process.terminate()
            try:
                app_process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                app_process.kill()
            x_server.terminate()
            x_server.wait()

    print(f"walked {failures.nodes_walked} nodes; checked {failures.controls_checked} showing "
          f"focusable controls and {failures.windows_checked} windows or dialogs")
    for failure in failures.items:
        print("FAIL", failure)
    print(f"{len(failures.items)} problems")
    return 1 if failures.items else 0


if __name__ == "__main__":
    sys.exit(main())
