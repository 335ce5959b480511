<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en">
<context>
    <name>AttachmentStrip</name>
    <message>
        <source>Remove %1</source>
        <translation>%1 entfernen</translation>
    </message>
    <message>
        <source>Reading the images</source>
        <translation>Die Bilder werden gelesen</translation>
    </message>
</context>
<context>
    <name>CatalogEntryCard</name>
    <message>
        <source>Drafts with %1 for speculative decoding: faster replies, the same text.</source>
        <translation>Entwirft mit %1 für spekulatives Dekodieren: schnellere Antworten, derselbe Text.</translation>
    </message>
    <message>
        <source>Get %1</source>
        <translation>%1 holen</translation>
    </message>
    <message>
        <source>Download the draft model too</source>
        <translation>Das Entwurfsmodell ebenfalls herunterladen</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>heruntergeladen</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>%1 params</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <source>file ≈ %1</source>
        <translation>Datei ≈ %1</translation>
    </message>
    <message>
        <source>needs ≈ %1</source>
        <translation>braucht ≈ %1</translation>
    </message>
    <message>
        <source>SHA-256 from Hugging Face</source>
        <translation>SHA-256 von Hugging Face</translation>
    </message>
    <message>
        <source>Hearth cannot run this model: its architecture (%1) is not supported.</source>
        <translation>Hearth kann dieses Modell nicht ausführen: Seine Architektur (%1) wird nicht unterstützt.</translation>
    </message>
    <message>
        <source>Needs more memory than this computer has.</source>
        <translation>Braucht mehr Arbeitsspeicher, als dieser Computer hat.</translation>
    </message>
    <message>
        <source>Needs most of this computer&apos;s memory; other programs may slow it down.</source>
        <translation>Braucht den Großteil des Arbeitsspeichers; andere Programme können es ausbremsen.</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <source>vision, + %1 image projector</source>
        <translation>Bilder, + %1 Bildprojektor</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>What&apos;s on your mind?</source>
        <translation>Worüber möchten Sie sprechen?</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>Kein Modell geladen</translation>
    </message>
    <message>
        <source>Chatting with %1. Everything runs on this computer; nothing leaves it.</source>
        <translation>Chat mit %1. Alles läuft auf diesem Computer; nichts verlässt ihn.</translation>
    </message>
    <message>
        <source>Pick a model, or drop a .gguf file anywhere on this window.</source>
        <translation>Wählen Sie ein Modell, oder ziehen Sie eine .gguf-Datei irgendwo auf dieses Fenster.</translation>
    </message>
    <message>
        <source>Choose a model</source>
        <translation>Modell wählen</translation>
    </message>
    <message>
        <source>Try the demo model (a toy that writes children&apos;s stories)</source>
        <translation>Demo-Modell ausprobieren (ein Spielzeug, das Kindergeschichten schreibt)</translation>
    </message>
    <message>
        <source>Scroll to the latest message</source>
        <translation>Zur neuesten Nachricht scrollen</translation>
    </message>
    <message>
        <source>Message %1…</source>
        <translation>Nachricht an %1…</translation>
    </message>
    <message>
        <source>Load a model to start chatting</source>
        <translation>Laden Sie ein Modell, um zu chatten</translation>
    </message>
    <message>
        <source>Enter to send · Shift+Enter for a new line</source>
        <translation>Enter sendet · Umschalt+Enter für eine neue Zeile</translation>
    </message>
    <message>
        <source>Reply stopped: %1</source>
        <translation>Antwort angehalten: %1</translation>
    </message>
    <message>
        <source>Reply failed: %1</source>
        <translation>Antwort fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Reply: %1</source>
        <translation>Antwort: %1</translation>
    </message>
    <message>
        <source>Scroll the conversation</source>
        <translation>Das Gespräch scrollen</translation>
    </message>
    <message>
        <source>Use a tool</source>
        <translation>Ein Werkzeug verwenden</translation>
    </message>
    <message>
        <source>The next reply begins with a call of one of the MCP servers&apos; tools</source>
        <translation>Die nächste Antwort beginnt mit dem Aufruf eines Werkzeugs der MCP-Server</translation>
    </message>
    <message>
        <source>Attach images</source>
        <translation>Bilder anhängen</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.webp)</source>
        <translation>Bilder (*.png *.jpg *.jpeg *.webp)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>Code kopieren</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message Hearth…</source>
        <translation>Nachricht an Hearth…</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <source>Enter sends, Shift+Enter starts a new line, Ctrl+Tab types a tab</source>
        <translation>Enter sendet, Umschalt+Enter beginnt eine neue Zeile, Strg+Tab fügt einen Tabulator ein</translation>
    </message>
    <message>
        <source>Stop generating</source>
        <translation>Generieren stoppen</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Stop generating (Esc)</source>
        <translation>Generieren stoppen (Esc)</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>Senden (Enter)</translation>
    </message>
    <message>
        <source>Scroll the message</source>
        <translation>Die Nachricht scrollen</translation>
    </message>
    <message>
        <source>Attach images (or drop them on the window, or paste them)</source>
        <translation>Bilder anhängen (oder auf das Fenster ziehen oder einfügen)</translation>
    </message>
    <message>
        <source>Attach images</source>
        <translation>Bilder anhängen</translation>
    </message>
</context>
<context>
    <name>ConversationFileRows</name>
    <message>
        <source>Export all conversations</source>
        <translation>Alle Gespräche exportieren</translation>
    </message>
    <message>
        <source>Into %1, under a new name.</source>
        <translation>Nach %1, unter einem neuen Namen.</translation>
    </message>
    <message>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>Export all conversations as %1</source>
        <translation>Alle Gespräche als %1 exportieren</translation>
    </message>
    <message>
        <source>Import conversations</source>
        <translation>Gespräche importieren</translation>
    </message>
    <message>
        <source>A JSON export of Hearth&apos;s, or conversations.json from ChatGPT&apos;s data export.</source>
        <translation>Ein JSON-Export von Hearth oder conversations.json aus dem Datenexport von ChatGPT.</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <source>Conversation files (*.json)</source>
        <translation>Gesprächsdateien (*.json)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>ExportMenu</name>
    <message>
        <source>Export this conversation</source>
        <translation>Dieses Gespräch exportieren</translation>
    </message>
    <message>
        <source>Markdown (.md)</source>
        <translation>Markdown (.md)</translation>
    </message>
    <message>
        <source>JSON, for Hearth (.json)</source>
        <translation>JSON, für Hearth (.json)</translation>
    </message>
    <message>
        <source>PDF (.pdf)</source>
        <translation>PDF (.pdf)</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>FileBrowserPopup</name>
    <message>
        <source>Up one folder (Backspace)</source>
        <translation>Einen Ordner nach oben (Rücktaste)</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>Persönlicher Ordner</translation>
    </message>
    <message>
        <source>Folders in %1</source>
        <translation>Ordner in %1</translation>
    </message>
    <message>
        <source>Folders and files in %1</source>
        <translation>Ordner und Dateien in %1</translation>
    </message>
    <message>
        <source>Folder %1</source>
        <translation>Ordner %1</translation>
    </message>
    <message>
        <source>No folders in here. Choose this folder, or go up.</source>
        <translation>Hier sind keine Ordner. Wählen Sie diesen Ordner, oder gehen Sie nach oben.</translation>
    </message>
    <message>
        <source>Nothing here matches the filter.</source>
        <translation>Hier passt nichts zum Filter.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Choose this folder</source>
        <translation>Diesen Ordner wählen</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Use %1</source>
        <translation>%1 verwenden</translation>
    </message>
    <message>
        <source>Type a path</source>
        <translation>Pfad eingeben</translation>
    </message>
    <message>
        <source>Folder shown, or a path to open: %1</source>
        <translation>Angezeigter Ordner oder ein zu öffnender Pfad: %1</translation>
    </message>
    <message>
        <source>%1 is a file: choose a folder</source>
        <translation>%1 ist eine Datei: bitte einen Ordner wählen</translation>
    </message>
    <message>
        <source>There is no file or folder at %1</source>
        <translation>Unter %1 gibt es keine Datei und keinen Ordner</translation>
    </message>
    <message>
        <source>This folder does not exist. Type a path above, or go up.</source>
        <translation>Diesen Ordner gibt es nicht. Oben einen Pfad eingeben oder eine Ebene höher gehen.</translation>
    </message>
    <message>
        <source>Scroll the files</source>
        <translation>Die Dateien scrollen</translation>
    </message>
</context>
<context>
    <name>FileDropArea</name>
    <message>
        <source>Drop to attach this image to your message</source>
        <translation>Loslassen, um dieses Bild an Ihre Nachricht anzuhängen</translation>
    </message>
    <message>
        <source>Drop to attach these %1 images to your message</source>
        <translation>Loslassen, um diese %1 Bilder an Ihre Nachricht anzuhängen</translation>
    </message>
    <message>
        <source>Drop to load this model</source>
        <translation>Loslassen, um dieses Modell zu laden</translation>
    </message>
    <message>
        <source>Only one .gguf model file can be loaded</source>
        <translation>Es kann nur eine .gguf-Modelldatei geladen werden</translation>
    </message>
</context>
<context>
    <name>ImageAttachmentReader</name>
    <message>
        <source>%1 cannot be attached: it is a folder, not an image.</source>
        <translation>%1 kann nicht angehängt werden: Es ist ein Ordner, kein Bild.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: there is no such file.</source>
        <translation>%1 kann nicht angehängt werden: Diese Datei gibt es nicht.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: it is %2 MiB, more than the %3 MiB an image may have.</source>
        <translation>%1 kann nicht angehängt werden: Es ist %2 MiB groß, mehr als die %3 MiB, die ein Bild haben darf.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: it cannot be read (%2).</source>
        <translation>%1 kann nicht angehängt werden: Es kann nicht gelesen werden (%2).</translation>
    </message>
    <message>
        <source>%1 cannot be attached: %2.</source>
        <translation>%1 kann nicht angehängt werden: %2.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: the clipboard&apos;s image is empty.</source>
        <translation>%1 kann nicht angehängt werden: Das Bild in der Zwischenablage ist leer.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: it is %2x%3 pixels, more than the %4x%4 an image may have.</source>
        <translation>%1 kann nicht angehängt werden: Es hat %2x%3 Pixel, mehr als die %4x%4, die ein Bild haben darf.</translation>
    </message>
    <message>
        <source>%1 cannot be attached: it cannot be stored as PNG.</source>
        <translation>%1 kann nicht angehängt werden: Es kann nicht als PNG gespeichert werden.</translation>
    </message>
    <message>
        <source>pasted image</source>
        <translation>eingefügtes Bild</translation>
    </message>
</context>
<context>
    <name>ImageThumbnail</name>
    <message>
        <source>Image %1</source>
        <translation>Bild %1</translation>
    </message>
    <message>
        <source>Opens the image large</source>
        <translation>Öffnet das Bild in voller Größe</translation>
    </message>
</context>
<context>
    <name>ImageViewer</name>
    <message>
        <source>Image %1</source>
        <translation>Bild %1</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>Schließen (Esc)</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>Modell: %1</translation>
    </message>
    <message>
        <source>No model: choose one</source>
        <translation>Kein Modell: bitte eines wählen</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>Kein Modell</translation>
    </message>
    <message>
        <source>Engine metrics</source>
        <translation>Engine-Messwerte</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>McpServersSetting</name>
    <message>
        <source>Time a tool may take</source>
        <translation>Zeit, die ein Werkzeug brauchen darf</translation>
    </message>
    <message>
        <source>A call that takes longer is ended, its server stopped (it may be stuck), and the reply goes on with the error.</source>
        <translation>Ein Aufruf, der länger dauert, wird beendet, sein Server angehalten (er hängt vielleicht), und die Antwort geht mit dem Fehler weiter.</translation>
    </message>
    <message numerus="yes">
        <source>%n s</source>
        <translation>
            <numerusform>%n s</numerusform>
            <numerusform>%n s</numerusform>
        </translation>
    </message>
    <message>
        <source>No MCP servers yet. An MCP server gives the model tools: files, the web, your calendar. Add one below with the command that starts it, e.g. npx -y @modelcontextprotocol/server-filesystem and a folder.</source>
        <translation>Noch keine MCP-Server. Ein MCP-Server gibt dem Modell Werkzeuge: Dateien, das Web, Ihren Kalender. Fügen Sie unten einen mit dem Befehl hinzu, der ihn startet, z. B. npx -y @modelcontextprotocol/server-filesystem und einem Ordner.</translation>
    </message>
    <message>
        <source>Use the server %1</source>
        <translation>Den Server %1 verwenden</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>Startet…</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>Nicht gestartet</translation>
    </message>
    <message>
        <source>Show tools</source>
        <translation>Werkzeuge zeigen</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Bearbeiten</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>e.g. files</source>
        <translation>z. B. Dateien</translation>
    </message>
    <message>
        <source>Server name</source>
        <translation>Name des Servers</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>e.g. npx</source>
        <translation>z. B. npx</translation>
    </message>
    <message>
        <source>Server command</source>
        <translation>Befehl des Servers</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>Argumente</translation>
    </message>
    <message>
        <source>e.g. -y a-server ~/Documents</source>
        <translation>z. B. -y ein-server ~/Dokumente</translation>
    </message>
    <message>
        <source>Server arguments</source>
        <translation>Argumente des Servers</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Umgebung</translation>
    </message>
    <message>
        <source>NAME=value, one a line</source>
        <translation>NAME=Wert, einer pro Zeile</translation>
    </message>
    <message>
        <source>Server environment</source>
        <translation>Umgebung des Servers</translation>
    </message>
    <message>
        <source>Add server</source>
        <translation>Server hinzufügen</translation>
    </message>
    <message>
        <source>Save server</source>
        <translation>Server speichern</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Earlier messages are no longer in the model&apos;s view</source>
        <translation>Frühere Nachrichten sieht das Modell nicht mehr</translation>
    </message>
    <message numerus="yes">
        <source>The model sees %n token(s) at a time (its context), and this conversation no longer fits: the oldest messages were let go to make room for the reply.</source>
        <translation>
            <numerusform>Das Modell sieht %n Token auf einmal (sein Kontext), und dieses Gespräch passt nicht mehr hinein: Die ältesten Nachrichten wurden verworfen, um Platz für die Antwort zu schaffen.</numerusform>
            <numerusform>Das Modell sieht %n Tokens auf einmal (sein Kontext), und dieses Gespräch passt nicht mehr hinein: Die ältesten Nachrichten wurden verworfen, um Platz für die Antwort zu schaffen.</numerusform>
        </translation>
    </message>
    <message>
        <source>The system prompt is always kept and takes part of that room.</source>
        <translation>Der Systemprompt bleibt immer erhalten und belegt einen Teil dieses Platzes.</translation>
    </message>
    <message>
        <source>A larger context keeps more of the conversation in view.</source>
        <translation>Ein größerer Kontext behält mehr vom Gespräch im Blick.</translation>
    </message>
    <message numerus="yes">
        <source>This model was trained for %n token(s) at most; a model with a longer context keeps more in view.</source>
        <translation>
            <numerusform>Dieses Modell wurde für höchstens %n Token trainiert; ein Modell mit längerem Kontext behält mehr im Blick.</numerusform>
            <numerusform>Dieses Modell wurde für höchstens %n Tokens trainiert; ein Modell mit längerem Kontext behält mehr im Blick.</numerusform>
        </translation>
    </message>
    <message>
        <source>Set a larger context…</source>
        <translation>Größeren Kontext einstellen…</translation>
    </message>
    <message>
        <source>Choose another model…</source>
        <translation>Anderes Modell wählen…</translation>
    </message>
    <message>
        <source>Edited message</source>
        <translation>Bearbeitete Nachricht</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>Gestoppt</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Edit and resend</source>
        <translation>Bearbeiten und erneut senden</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>Neu generieren</translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation>Vorherige Version</translation>
    </message>
    <message>
        <source>Previous version of this message</source>
        <translation>Vorherige Version dieser Nachricht</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Version %1 of %2</source>
        <translation>Version %1 von %2</translation>
    </message>
    <message>
        <source>Next version</source>
        <translation>Nächste Version</translation>
    </message>
    <message>
        <source>Next version of this message</source>
        <translation>Nächste Version dieser Nachricht</translation>
    </message>
    <message>
        <source>Enter sends, Shift+Enter starts a new line, Escape cancels</source>
        <translation>Enter sendet, Umschalt+Enter beginnt eine neue Zeile, Escape bricht ab</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
</context>
<context>
    <name>MetricsPanel</name>
    <message>
        <source>Speculative decoding</source>
        <translation>Spekulatives Dekodieren</translation>
    </message>
    <message>
        <source>%1 of %2 drafted tokens accepted</source>
        <translation>%1 von %2 entworfenen Tokens angenommen</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>angenommen</translation>
    </message>
    <message>
        <source>tokens per verify pass</source>
        <translation>Tokens je Prüfdurchlauf</translation>
    </message>
    <message>
        <source>No speculative reply yet.</source>
        <translation>Noch keine spekulative Antwort.</translation>
    </message>
    <message>
        <source>Speed-up: no plain baseline yet (a reply of this model with speculative decoding off).</source>
        <translation>Beschleunigung: noch kein Vergleichswert (eine Antwort dieses Modells ohne spekulatives Dekodieren).</translation>
    </message>
    <message>
        <source>Speed-up: %1× plain decoding (%2 against %3 tokens/s)</source>
        <translation>Beschleunigung: %1× gegenüber normalem Dekodieren (%2 gegen %3 Tokens/s)</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <source>generating</source>
        <translation>generiert</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>im Leerlauf</translation>
    </message>
    <message>
        <source>reading the prompt</source>
        <translation>liest den Prompt</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation>Tokens pro Sekunde</translation>
    </message>
    <message>
        <source>generation</source>
        <translation>Generieren</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>Erstes Token</translation>
    </message>
    <message>
        <source>Generated</source>
        <translation>Generiert</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>Prompt tokens per reply</source>
        <translation>Prompt-Tokens pro Antwort</translation>
    </message>
    <message>
        <source>last %1 replies</source>
        <translation>letzte %1 Antworten</translation>
    </message>
    <message>
        <source>No replies yet.</source>
        <translation>Noch keine Antworten.</translation>
    </message>
    <message>
        <source>Last reply: %1 reused · %2 computed%3</source>
        <translation>Letzte Antwort: %1 wiederverwendet · %2 berechnet%3</translation>
    </message>
    <message>
        <source> · resumed from saved state</source>
        <translation> · aus gespeichertem Zustand fortgesetzt</translation>
    </message>
    <message>
        <source>reused from cache</source>
        <translation>aus dem Cache</translation>
    </message>
    <message>
        <source>computed</source>
        <translation>berechnet</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-Cache</translation>
    </message>
    <message>
        <source>%1 of %2 tokens · %3</source>
        <translation>%1 von %2 Tokens · %3</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>KV caches</source>
        <translation>KV-Caches</translation>
    </message>
    <message>
        <source>Process (resident)</source>
        <translation>Prozess (resident)</translation>
    </message>
    <message>
        <source>Kernel dispatch</source>
        <translation>Kernel-Aufrufe</translation>
    </message>
    <message>
        <source>calls · mean · latency histogram</source>
        <translation>Aufrufe · Mittel · Latenzverteilung</translation>
    </message>
    <message>
        <source>No kernels have run yet.</source>
        <translation>Noch keine Kernel gelaufen.</translation>
    </message>
    <message>
        <source>%1 calls · %2</source>
        <translation>%1 Aufrufe · %2</translation>
    </message>
    <message>
        <source> · %1% of kernel time</source>
        <translation> · %1 % der Kernel-Zeit</translation>
    </message>
    <message>
        <source>Reset counters</source>
        <translation>Zähler zurücksetzen</translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation>Lokaler API-Server</translation>
    </message>
    <message numerus="yes">
        <source>%n request(s) answered</source>
        <translation>
            <numerusform>%n Anfrage beantwortet</numerusform>
            <numerusform>%n Anfragen beantwortet</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 tokens generated</source>
        <translation>%1 Tokens erzeugt</translation>
    </message>
    <message>
        <source>last %1 tokens/s</source>
        <translation>zuletzt %1 Tokens/s</translation>
    </message>
    <message>
        <source>Experts chosen</source>
        <translation>Gewählte Experten</translation>
    </message>
    <message>
        <source>%1 experts · summed over %2 layers</source>
        <translation>%1 Experten · summiert über %2 Schichten</translation>
    </message>
    <message>
        <source>%1 of %2 experts chosen at least once</source>
        <translation>%1 von %2 Experten mindestens einmal gewählt</translation>
    </message>
    <message>
        <source>%1 dispatches · %2</source>
        <translation>%1 GPU-Aufträge · %2</translation>
    </message>
    <message>
        <source>%1% of GPU time</source>
        <translation>%1 % der GPU-Zeit</translation>
    </message>
    <message>
        <source>Scroll the engine metrics</source>
        <translation>Die Engine-Messwerte scrollen</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>Bilder</translation>
    </message>
    <message numerus="yes">
        <source>%n image(s) in the last prompt</source>
        <translation>
            <numerusform>%n Bild im letzten Prompt</numerusform>
            <numerusform>%n Bilder im letzten Prompt</numerusform>
        </translation>
    </message>
    <message>
        <source>image positions</source>
        <translation>Bildpositionen</translation>
    </message>
    <message>
        <source>encoding</source>
        <translation>Kodierung</translation>
    </message>
    <message>
        <source>%1 encoded now, %2 from the image cache</source>
        <translation>%1 jetzt kodiert, %2 aus dem Bild-Cache</translation>
    </message>
</context>
<context>
    <name>ModelCatalog</name>
    <message>
        <source>Download a model</source>
        <translation>Ein Modell herunterladen</translation>
    </message>
    <message>
        <source>Files go to the models folder. This computer has %1 of memory.</source>
        <translation>Die Dateien kommen in den Modellordner. Dieser Computer hat %1 Arbeitsspeicher.</translation>
    </message>
    <message>
        <source>Files go to the models folder.</source>
        <translation>Die Dateien kommen in den Modellordner.</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Choose the models folder</source>
        <translation>Modellordner wählen</translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation>GGUF-Modell öffnen</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>Ordner: %1</translation>
    </message>
    <message>
        <source>Change folder</source>
        <translation>Ordner wechseln</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>Neu einlesen</translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation>Datei öffnen…</translation>
    </message>
    <message>
        <source>Open a model file (Ctrl+O)</source>
        <translation>Modelldatei öffnen (Strg+O)</translation>
    </message>
    <message>
        <source>Reading and checking the file…</source>
        <translation>Datei wird gelesen und geprüft…</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>Entladen</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>New here? Try the demo model</source>
        <translation>Neu hier? Probieren Sie das Demo-Modell aus</translation>
    </message>
    <message>
        <source>stories260K is a toy that writes short children&apos;s stories, and nothing else: 260 thousand parameters in a 1 MB file, shipped with Hearth so that you can see how chatting works right away. For real conversations, open a model of your own or download one from the catalog below.</source>
        <translation>stories260K ist ein Spielzeug, das kurze Kindergeschichten schreibt, und sonst nichts: 260 Tausend Parameter in einer Datei von 1 MB, mit Hearth ausgeliefert, damit Sie gleich sehen, wie das Chatten funktioniert. Für echte Gespräche öffnen Sie ein eigenes Modell oder laden eines aus dem Katalog unten herunter.</translation>
    </message>
    <message>
        <source>Try the demo</source>
        <translation>Demo ausprobieren</translation>
    </message>
    <message>
        <source>Load the demo model, a toy that writes children&apos;s stories</source>
        <translation>Das Demo-Modell laden, ein Spielzeug, das Kindergeschichten schreibt</translation>
    </message>
    <message>
        <source>Open a model…</source>
        <translation>Modell öffnen…</translation>
    </message>
    <message>
        <source>Browse the catalog</source>
        <translation>Katalog ansehen</translation>
    </message>
    <message>
        <source>Drop a .gguf file anywhere on this window to load it</source>
        <translation>Ziehen Sie eine .gguf-Datei irgendwo auf dieses Fenster, um sie zu laden</translation>
    </message>
    <message>
        <source>Available models</source>
        <translation>Verfügbare Modelle</translation>
    </message>
    <message>
        <source>No .gguf files in this folder yet. Put models there, or open one from anywhere.</source>
        <translation>Noch keine .gguf-Dateien in diesem Ordner. Legen Sie Modelle dort ab, oder öffnen Sie eines von einem beliebigen Ort.</translation>
    </message>
    <message>
        <source>recent</source>
        <translation>zuletzt</translation>
    </message>
    <message>
        <source>loaded</source>
        <translation>geladen</translation>
    </message>
    <message>
        <source>%1 params</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <source>%1 ctx</source>
        <translation>%1 Kontext</translation>
    </message>
    <message>
        <source>file %1</source>
        <translation>Datei %1</translation>
    </message>
    <message>
        <source>needs ≈ %1</source>
        <translation>braucht ≈ %1</translation>
    </message>
    <message>
        <source>chat template</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>no template: ChatML</source>
        <translation>keine Vorlage: ChatML</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>Laden</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>%1 laden</translation>
    </message>
    <message>
        <source>RAM ≈ %1</source>
        <translation>RAM ≈ %1</translation>
    </message>
    <message>
        <source>GPU ≈ %1</source>
        <translation>GPU ≈ %1</translation>
    </message>
    <message>
        <source>fits entirely on the GPU</source>
        <translation>passt ganz auf die GPU</translation>
    </message>
    <message>
        <source>%1 of %2 layers on the GPU</source>
        <translation>%1 von %2 Schichten auf der GPU</translation>
    </message>
    <message>
        <source>too large for the GPU: runs on the CPU</source>
        <translation>zu groß für die GPU: läuft auf der CPU</translation>
    </message>
    <message>
        <source>Model settings (its own are saved)</source>
        <translation>Modelleinstellungen (eigene gespeichert)</translation>
    </message>
    <message>
        <source>Model settings</source>
        <translation>Modelleinstellungen</translation>
    </message>
    <message>
        <source>Settings for %1</source>
        <translation>Einstellungen für %1</translation>
    </message>
    <message>
        <source>Scroll the models page</source>
        <translation>Die Modellseite scrollen</translation>
    </message>
    <message>
        <source>vision</source>
        <translation>Bilder</translation>
    </message>
    <message>
        <source>Reads images, with %1</source>
        <translation>Liest Bilder, mit %1</translation>
    </message>
    <message>
        <source>Reads images</source>
        <translation>Liest Bilder</translation>
    </message>
    <message>
        <source>Choose the image projector (mmproj) for this model</source>
        <translation>Den Bildprojektor (mmproj) für dieses Modell wählen</translation>
    </message>
    <message>
        <source>GGUF files (*.gguf)</source>
        <translation>GGUF-Dateien (*.gguf)</translation>
    </message>
    <message>
        <source>Image projector: %1 (choose another)</source>
        <translation>Bildprojektor: %1 (einen anderen wählen)</translation>
    </message>
    <message>
        <source>Choose an image projector (mmproj) so that this model reads images</source>
        <translation>Einen Bildprojektor (mmproj) wählen, damit dieses Modell Bilder liest</translation>
    </message>
    <message>
        <source>Image projector for %1</source>
        <translation>Bildprojektor für %1</translation>
    </message>
</context>
<context>
    <name>ModelPresetDialog</name>
    <message>
        <source>Model settings</source>
        <translation>Modelleinstellungen</translation>
    </message>
    <message>
        <source>Settings for %1</source>
        <translation>Einstellungen für %1</translation>
    </message>
    <message>
        <source>Checked values are this model&apos;s own and apply whenever it is loaded; the others follow the global settings.</source>
        <translation>Angehakte Werte gehören diesem Modell und gelten, wann immer es geladen ist; die anderen folgen den allgemeinen Einstellungen.</translation>
    </message>
    <message>
        <source>The file has changed since these settings were saved, so they are not applied. Save them to keep them for the file as it is now.</source>
        <translation>Die Datei hat sich geändert, seit diese Einstellungen gespeichert wurden, deshalb gelten sie nicht. Speichern Sie sie, um sie für die Datei in ihrem jetzigen Stand zu behalten.</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <source>Maximum reply length (0: automatic)</source>
        <translation>Maximale Antwortlänge (0: automatisch)</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Kontextlänge</translation>
    </message>
    <message>
        <source>Chat template (empty: the model&apos;s own)</source>
        <translation>Chat-Vorlage (leer: die des Modells)</translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>Use global settings</source>
        <translation>Allgemeine Einstellungen verwenden</translation>
    </message>
    <message>
        <source>Forget this model&apos;s own settings</source>
        <translation>Die eigenen Einstellungen dieses Modells vergessen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Speichern</translation>
    </message>
    <message>
        <source>%1: this model&apos;s own</source>
        <translation>%1: eigener Wert dieses Modells</translation>
    </message>
</context>
<context>
    <name>ModelScan</name>
    <message>
        <source>Its chat template has no system role: the system prompt goes at the start of the first message.</source>
        <translation>Seine Chat-Vorlage kennt keine Systemrolle: Der Systemprompt kommt an den Anfang der ersten Nachricht.</translation>
    </message>
</context>
<context>
    <name>ModelSearch</name>
    <message>
        <source>Search Hugging Face</source>
        <translation>Hugging Face durchsuchen</translation>
    </message>
    <message>
        <source>Part of a model&apos;s name, e.g. qwen2.5 0.5b</source>
        <translation>Teil eines Modellnamens, z. B. qwen2.5 0.5b</translation>
    </message>
    <message>
        <source>Search Hugging Face for GGUF models</source>
        <translation>Hugging Face nach GGUF-Modellen durchsuchen</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Suche läuft…</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>Some repositories could not be listed:
%1</source>
        <translation>Einige Repositorys konnten nicht aufgelistet werden:
%1</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 downloads</source>
        <translation>%1 · %2 · %3 Downloads</translation>
    </message>
    <message>
        <source>%1 · %2 downloads</source>
        <translation>%1 · %2 Downloads</translation>
    </message>
    <message>
        <source>no checksum</source>
        <translation>keine Prüfsumme</translation>
    </message>
    <message>
        <source>not supported</source>
        <translation>nicht unterstützt</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>%1 herunterladen</translation>
    </message>
</context>
<context>
    <name>PromptLibraryDialog</name>
    <message>
        <source>New prompt</source>
        <translation>Neuer Prompt</translation>
    </message>
    <message>
        <source>System prompts</source>
        <translation>Systemprompts</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Prompt name</source>
        <translation>Name des Prompts</translation>
    </message>
    <message>
        <source>You are a helpful assistant.</source>
        <translation>Du bist ein hilfreicher Assistent.</translation>
    </message>
    <message>
        <source>Prompt text</source>
        <translation>Text des Prompts</translation>
    </message>
    <message>
        <source>New</source>
        <translation>Neu</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Speichern</translation>
    </message>
</context>
<context>
    <name>PromptPresetChooser</name>
    <message>
        <source>Default prompt</source>
        <translation>Standard-Prompt</translation>
    </message>
    <message>
        <source>System prompt of this chat: %1</source>
        <translation>Systemprompt dieses Chats: %1</translation>
    </message>
    <message>
        <source>System prompt: %1</source>
        <translation>Systemprompt: %1</translation>
    </message>
    <message>
        <source>Manage prompts…</source>
        <translation>Prompts verwalten …</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Port %1 is already in use by another program. Choose another port.</source>
        <translation>Port %1 wird schon von einem anderen Programm verwendet. Wählen Sie einen anderen Port.</translation>
    </message>
    <message>
        <source>Not allowed to listen on port %1 (ports below 1024 need administrator rights).</source>
        <translation>Keine Berechtigung, auf Port %1 zu lauschen (Ports unter 1024 erfordern Administratorrechte).</translation>
    </message>
    <message>
        <source>This computer has no such address to listen on.</source>
        <translation>Auf dieser Adresse kann dieser Computer nicht lauschen: Er hat sie nicht.</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not an origin: write it as scheme://host or scheme://host:port (e.g. http://localhost:3000; port * for any port).</source>
        <translation>„%1“ ist kein Ursprung: Schreiben Sie ihn als schema://host oder schema://host:port (z. B. http://localhost:3000; Port * für jeden Port).</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a host name: write the name alone, without a scheme or a port (e.g. hearth.lan).</source>
        <translation>„%1“ ist kein Hostname: Schreiben Sie den Namen allein, ohne Schema oder Port (z. B. hearth.lan).</translation>
    </message>
    <message>
        <source>The request has more than one Host header.</source>
        <translation>Die Anfrage hat mehr als einen Host-Header.</translation>
    </message>
    <message>
        <source>The request has no Host header (HTTP/1.1 requires one).</source>
        <translation>Die Anfrage hat keinen Host-Header (HTTP/1.1 verlangt einen).</translation>
    </message>
    <message>
        <source>Requests for the host &apos;%1&apos; are refused: the server answers only to this computer&apos;s loopback names (localhost, 127.0.0.1, [::1]). Allow another name with --allow-host NAME, or in Hearth&apos;s settings.</source>
        <translation>Anfragen an den Host „%1“ werden abgelehnt: Der Server antwortet nur auf die Loopback-Namen dieses Computers (localhost, 127.0.0.1, [::1]). Erlauben Sie einen anderen Namen mit --allow-host NAME oder in Hearths Einstellungen.</translation>
    </message>
    <message>
        <source>The request has more than one Origin header.</source>
        <translation>Die Anfrage hat mehr als einen Origin-Header.</translation>
    </message>
    <message>
        <source>Requests from the web page at &apos;%1&apos; are refused. Allow that origin with --allow-origin ORIGIN, or in Hearth&apos;s settings (Local API server, allowed web pages).</source>
        <translation>Anfragen von der Webseite unter „%1“ werden abgelehnt. Erlauben Sie diesen Ursprung mit --allow-origin ORIGIN oder in Hearths Einstellungen (Lokaler API-Server, erlaubte Webseiten).</translation>
    </message>
    <message>
        <source>The request body must be JSON sent with &quot;Content-Type: application/json&quot; (this request&apos;s Content-Type is &apos;%1&apos;).</source>
        <translation>Der Rumpf der Anfrage muss JSON sein, gesendet mit „Content-Type: application/json“ (der Content-Type dieser Anfrage ist „%1“).</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <source>This computer&apos;s speed</source>
        <translation>Geschwindigkeit dieses Computers</translation>
    </message>
    <message>
        <source>Measuring… (a few seconds)</source>
        <translation>Wird gemessen … (einige Sekunden)</translation>
    </message>
    <message>
        <source>%1. The model cards predict their speed from it.</source>
        <translation>%1. Die Modellkarten sagen daraus ihre Geschwindigkeit voraus.</translation>
    </message>
    <message>
        <source>Not measured yet.</source>
        <translation>Noch nicht gemessen.</translation>
    </message>
    <message>
        <source>Measure again</source>
        <translation>Erneut messen</translation>
    </message>
    <message>
        <source>Export and import</source>
        <translation>Export und Import</translation>
    </message>
    <message>
        <source>Choose the models folder</source>
        <translation>Modellordner wählen</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Changes apply at once and are saved for the next start.</source>
        <translation>Änderungen gelten sofort und werden für den nächsten Start gespeichert.</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Gespräch</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>Sent at the start of every conversation.</source>
        <translation>Wird am Anfang jedes Gesprächs gesendet.</translation>
    </message>
    <message>
        <source>You are a helpful assistant.</source>
        <translation>Du bist ein hilfsbereiter Assistent.</translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>A Jinja template for the prompt. Empty: the model&apos;s own (ChatML if it has none).</source>
        <translation>Eine Jinja-Vorlage für den Prompt. Leer: die des Modells (ChatML, wenn es keine hat).</translation>
    </message>
    <message>
        <source>Use the model&apos;s</source>
        <translation>Die des Modells verwenden</translation>
    </message>
    <message>
        <source>{% for message in messages %}…{% endfor %}</source>
        <translation>{% for message in messages %}…{% endfor %}</translation>
    </message>
    <message>
        <source>Maximum reply length</source>
        <translation>Maximale Antwortlänge</translation>
    </message>
    <message>
        <source>Tokens per reply. Auto: as many as the model&apos;s context has room for, so that a reply never pushes the conversation it answers out of view.</source>
        <translation>Tokens pro Antwort. Auto: so viele, wie im Kontext des Modells Platz haben, damit eine Antwort das Gespräch, auf das sie antwortet, nie aus dem Blick schiebt.</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>Sampling</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>Zurücksetzen</translation>
    </message>
    <message>
        <source>Reset sampling</source>
        <translation>Sampling zurücksetzen</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>Higher is more varied; 0 always picks the likeliest token.</source>
        <translation>Höher ist abwechslungsreicher; 0 wählt immer das wahrscheinlichste Token.</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Only the k likeliest tokens are considered (0: off).</source>
        <translation>Nur die k wahrscheinlichsten Tokens kommen in Frage (0: aus).</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Nucleus sampling (1: off).</source>
        <translation>Nucleus-Sampling (1: aus).</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drops tokens less likely than this share of the likeliest (0: off).</source>
        <translation>Verwirft Tokens, die unwahrscheinlicher sind als dieser Anteil des wahrscheinlichsten (0: aus).</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <source>Discourages repeating recent tokens (1: off).</source>
        <translation>Macht das Wiederholen kürzlich erzeugter Tokens unwahrscheinlicher (1: aus).</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>The same seed and prompt give the same reply; -1 picks a new one each time.</source>
        <translation>Gleicher Seed und gleicher Prompt ergeben dieselbe Antwort; -1 wählt jedes Mal einen neuen.</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Kontextlänge</translation>
    </message>
    <message>
        <source>Tokens each conversation keeps in view (capped at the model&apos;s own).</source>
        <translation>Tokens, die jedes Gespräch im Blick behält (höchstens so viele wie der Kontext des Modells).</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <source>Kernel threads for the forward pass (0: one per core, as the engine counts them).</source>
        <translation>Kernel-Threads für den Vorwärtsdurchlauf (0: einer pro Kern, so wie die Engine sie zählt).</translation>
    </message>
    <message>
        <source>KV cache keys</source>
        <translation>KV-Cache: Schlüssel</translation>
    </message>
    <message>
        <source>How the cache stores attention keys: f16 (exact), q8_0 (about half the memory) or q4_0 (about a quarter, less accurate). Models whose heads are not a multiple of 32 values keep f16.</source>
        <translation>Wie der Cache die Attention-Schlüssel speichert: f16 (exakt), q8_0 (etwa halber Speicher) oder q4_0 (etwa ein Viertel, ungenauer). Modelle, deren Heads kein Vielfaches von 32 Werten sind, behalten f16.</translation>
    </message>
    <message>
        <source>KV cache values</source>
        <translation>KV-Cache: Werte</translation>
    </message>
    <message>
        <source>How the cache stores attention values, as for keys. Changing either starts conversations&apos; caches afresh (they are saved first).</source>
        <translation>Wie der Cache die Attention-Werte speichert, wie bei den Schlüsseln. Wird eines von beiden geändert, beginnen die Caches der Gespräche neu (vorher werden sie gespeichert).</translation>
    </message>
    <message>
        <source>Conversation memory</source>
        <translation>Gesprächsspeicher</translation>
    </message>
    <message>
        <source>MB of KV cache kept for recent conversations; older ones are saved to disk and resume from there.</source>
        <translation>MB KV-Cache für die letzten Gespräche; ältere werden auf die Festplatte gespeichert und von dort fortgesetzt.</translation>
    </message>
    <message>
        <source>Compress saved conversation state</source>
        <translation>Gespeicherten Gesprächszustand komprimieren</translation>
    </message>
    <message>
        <source>Conversations saved to disk take about half the space (Q8_0 instead of F16); a resumed conversation&apos;s cache is slightly rounded.</source>
        <translation>Auf der Festplatte gespeicherte Gespräche belegen etwa halb so viel Platz (Q8_0 statt F16); der Cache eines fortgesetzten Gesprächs ist leicht gerundet.</translation>
    </message>
    <message>
        <source>Models folder</source>
        <translation>Modellordner</translation>
    </message>
    <message>
        <source>Change…</source>
        <translation>Ändern…</translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation>Lokaler API-Server</translation>
    </message>
    <message>
        <source>Serve the loaded model</source>
        <translation>Das geladene Modell bereitstellen</translation>
    </message>
    <message>
        <source>Other programs on this computer can use the model through an OpenAI-compatible API (chat and completions). Their requests take turns with your chats.</source>
        <translation>Andere Programme auf diesem Computer können das Modell über eine OpenAI-kompatible API nutzen (Chat und Completions). Ihre Anfragen wechseln sich mit Ihren Chats ab.</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>On 127.0.0.1 only: other computers cannot reach it.</source>
        <translation>Nur auf 127.0.0.1: Andere Computer erreichen ihn nicht.</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API-Schlüssel</translation>
    </message>
    <message>
        <source>Optional: clients must then send &quot;Authorization: Bearer KEY&quot;. Empty: any program on this computer may use it.</source>
        <translation>Optional: Clients müssen dann „Authorization: Bearer KEY“ senden. Leer: Jedes Programm auf diesem Computer darf ihn nutzen.</translation>
    </message>
    <message>
        <source>Allowed web pages</source>
        <translation>Erlaubte Webseiten</translation>
    </message>
    <message>
        <source>Any website open in your browser could otherwise send requests to the server, so requests from web pages are refused unless their origin is listed here, e.g. http://localhost:3000 (port * for any port). Programs that are not browsers are not affected.</source>
        <translation>Sonst könnte jede im Browser geöffnete Website Anfragen an den Server senden. Deshalb werden Anfragen von Webseiten abgelehnt, außer ihr Ursprung steht hier, z. B. http://localhost:3000 (Port * für jeden Port). Programme, die keine Browser sind, betrifft das nicht.</translation>
    </message>
    <message>
        <source>Other host names</source>
        <translation>Weitere Hostnamen</translation>
    </message>
    <message>
        <source>Clients must address the server as localhost, 127.0.0.1 or [::1]; list other names that lead to this computer here. This stops websites from reaching the server under a name of their own (DNS rebinding).</source>
        <translation>Clients müssen den Server als localhost, 127.0.0.1 oder [::1] ansprechen; weitere Namen, die zu diesem Computer führen, hier eintragen. So erreichen Websites den Server nicht unter einem eigenen Namen (DNS-Rebinding).</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Keiner</translation>
    </message>
    <message>
        <source>Listening on %1 — clients use %1/v1 as their base URL.</source>
        <translation>Lauscht auf %1 – Clients verwenden %1/v1 als Basis-URL.</translation>
    </message>
    <message>
        <source>Off.</source>
        <translation>Aus.</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>Darstellung</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>Farbschema</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>%1 theme</source>
        <translation>Farbschema %1</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>The window&apos;s language; System follows the desktop&apos;s.</source>
        <translation>Die Sprache des Fensters; „System“ folgt der des Desktops.</translation>
    </message>
    <message>
        <source>Font size</source>
        <translation>Schriftgröße</translation>
    </message>
    <message>
        <source>Compute device</source>
        <translation>Recheneinheit</translation>
    </message>
    <message>
        <source>Where the model runs: the CPU, or a GPU (through Vulkan) with its memory. Switching keeps your conversations and their caches.</source>
        <translation>Wo das Modell läuft: auf der CPU oder einer GPU (über Vulkan) mit ihrem Speicher. Ein Wechsel behält Ihre Unterhaltungen und deren Caches.</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Layers on GPU</source>
        <translation>Schichten auf der GPU</translation>
    </message>
    <message>
        <source>As many of the model&apos;s layers as fit in the GPU&apos;s memory with their KV cache; the rest run on the CPU.</source>
        <translation>So viele Schichten des Modells, wie samt ihrem KV-Cache in den Speicher der GPU passen; der Rest läuft auf der CPU.</translation>
    </message>
    <message>
        <source>The model&apos;s first layers run on the GPU, the rest on the CPU (0: all on the CPU).</source>
        <translation>Die ersten Schichten des Modells laufen auf der GPU, der Rest auf der CPU (0: alle auf der CPU).</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>%1 runs %2 of its %3 layers on %4.</source>
        <translation>%1 führt %2 seiner %3 Schichten auf %4 aus.</translation>
    </message>
    <message>
        <source>%1 runs on the CPU.</source>
        <translation>%1 läuft auf der CPU.</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>Auto</translation>
    </message>
    <message>
        <source>system prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>repetition penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <source>maximum reply length</source>
        <translation>maximale Antwortlänge</translation>
    </message>
    <message>
        <source>context length</source>
        <translation>Kontextlänge</translation>
    </message>
    <message>
        <source>chat template</source>
        <translation>Chat-Vorlage</translation>
    </message>
    <message>
        <source>%1 has settings of its own, used instead of these while it is loaded: %2.</source>
        <translation>%1 hat eigene Einstellungen, die statt dieser gelten, solange es geladen ist: %2.</translation>
    </message>
    <message>
        <source>Scroll the settings</source>
        <translation>Die Einstellungen scrollen</translation>
    </message>
    <message>
        <source>Tools (MCP servers)</source>
        <translation>Werkzeuge (MCP-Server)</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>Chats durchsuchen</translation>
    </message>
    <message>
        <source>Write a message</source>
        <translation>Eine Nachricht schreiben</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Die Nachricht senden</translation>
    </message>
    <message>
        <source>New line in the message</source>
        <translation>Neue Zeile in der Nachricht</translation>
    </message>
    <message>
        <source>Stop the reply; clear the search</source>
        <translation>Die Antwort anhalten; die Suche leeren</translation>
    </message>
    <message>
        <source>Rename or delete the chat in the list</source>
        <translation>Den Chat in der Liste umbenennen oder löschen</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>Eine Modelldatei öffnen</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>These shortcuts</source>
        <translation>Diese Tastenkürzel</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>Today</source>
        <translation>Heute</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Gestern</translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation>Letzte 7 Tage</translation>
    </message>
    <message>
        <source>Older</source>
        <translation>Älter</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>New chat (Ctrl+N)</source>
        <translation>Neuer Chat (Strg+N)</translation>
    </message>
    <message>
        <source>Search chats (Ctrl+K)</source>
        <translation>Chats suchen (Strg+K)</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>Chats suchen</translation>
    </message>
    <message>
        <source>Clear the search</source>
        <translation>Suche leeren</translation>
    </message>
    <message>
        <source>New name of the chat</source>
        <translation>Neuer Name des Chats</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Umbenennen</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>No chats match</source>
        <translation>Keine passenden Chats</translation>
    </message>
    <message>
        <source>Your chats appear here</source>
        <translation>Hier erscheinen Ihre Chats</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Models (Ctrl+O opens a file)</source>
        <translation>Modelle (Strg+O öffnet eine Datei)</translation>
    </message>
    <message>
        <source>Engine metrics</source>
        <translation>Engine-Messwerte</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Settings (Ctrl+,)</source>
        <translation>Einstellungen (Strg+,)</translation>
    </message>
    <message>
        <source>Delete chat?</source>
        <translation>Chat löschen?</translation>
    </message>
    <message>
        <source>“%1” and all its messages will be deleted.</source>
        <translation>„%1“ und alle seine Nachrichten werden gelöscht.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>F2 renames the chat, Delete deletes it</source>
        <translation>F2 benennt den Chat um, Entf löscht ihn</translation>
    </message>
    <message>
        <source>Scroll the chats</source>
        <translation>Die Chats scrollen</translation>
    </message>
</context>
<context>
    <name>SpeculationSetting</name>
    <message>
        <source>Speculative decoding</source>
        <translation>Spekulatives Dekodieren</translation>
    </message>
    <message>
        <source>Drafts the next tokens and checks them in one pass of the model: the same replies, often sooner. Prompt lookup drafts from what the conversation already holds; a draft model is a smaller model of the same family.</source>
        <translation>Entwirft die nächsten Tokens und prüft sie in einem Durchlauf des Modells: dieselben Antworten, oft schneller. Die Prompt-Suche entwirft aus dem, was das Gespräch schon enthält; ein Entwurfsmodell ist ein kleineres Modell derselben Familie.</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>Prompt lookup</source>
        <translation>Prompt-Suche</translation>
    </message>
    <message>
        <source>Draft model</source>
        <translation>Entwurfsmodell</translation>
    </message>
    <message>
        <source>No model files in the models folder: add a small model of the same vocabulary.</source>
        <translation>Keine Modelldateien im Modellordner: legen Sie ein kleines Modell mit demselben Vokabular hinein.</translation>
    </message>
    <message>
        <source>A smaller model with the loaded model&apos;s vocabulary, from the models folder.</source>
        <translation>Ein kleineres Modell mit dem Vokabular des geladenen Modells, aus dem Modellordner.</translation>
    </message>
    <message>
        <source>Choose a file…</source>
        <translation>Datei wählen…</translation>
    </message>
    <message>
        <source>Tokens looked up</source>
        <translation>Gesuchte Tokens</translation>
    </message>
    <message>
        <source>The longest run of recent tokens looked for earlier in the conversation (shorter runs are tried after it).</source>
        <translation>Die längste Folge der letzten Tokens, die früher im Gespräch gesucht wird (kürzere Folgen danach).</translation>
    </message>
    <message>
        <source>Most tokens drafted</source>
        <translation>Höchstens entworfene Tokens</translation>
    </message>
    <message>
        <source>Per verify pass; fewer are drafted while few are accepted.</source>
        <translation>Je Prüfdurchlauf; solange wenige angenommen werden, werden weniger entworfen.</translation>
    </message>
</context>
<context>
    <name>TokenRateChart</name>
    <message>
        <source>last %1 min</source>
        <translation>letzte %1 min</translation>
    </message>
    <message>
        <source>last %1 s</source>
        <translation>letzte %1 s</translation>
    </message>
    <message>
        <source>tok/s</source>
        <translation>tok/s</translation>
    </message>
    <message>
        <source>now</source>
        <translation>jetzt</translation>
    </message>
    <message>
        <source>%1 k</source>
        <translation>%1 k</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>No data yet</source>
        <translation>Noch keine Daten</translation>
    </message>
    <message>
        <source>Nothing was generated in this time</source>
        <translation>In dieser Zeit wurde nichts erzeugt</translation>
    </message>
</context>
<context>
    <name>ToolCallCard</name>
    <message>
        <source>Tool call: %1 of %2</source>
        <translation>Werkzeugaufruf: %1 von %2</translation>
    </message>
    <message>
        <source>no server</source>
        <translation>kein Server</translation>
    </message>
    <message>
        <source>%1 › %2</source>
        <translation>%1 › %2</translation>
    </message>
    <message>
        <source>Waiting for you</source>
        <translation>Wartet auf Sie</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>Läuft…</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>Einmal erlauben</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>Immer erlauben</translation>
    </message>
    <message>
        <source>Run %1 of %2 without asking from now on</source>
        <translation>%1 von %2 ab jetzt ohne Nachfrage ausführen</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>Ablehnen</translation>
    </message>
</context>
<context>
    <name>ToolResultView</name>
    <message>
        <source>Hide the result</source>
        <translation>Das Ergebnis verbergen</translation>
    </message>
    <message>
        <source>Show the result</source>
        <translation>Das Ergebnis zeigen</translation>
    </message>
    <message>
        <source>Error from %1 › %2</source>
        <translation>Fehler von %1 › %2</translation>
    </message>
    <message>
        <source>Result of %1 › %2</source>
        <translation>Ergebnis von %1 › %2</translation>
    </message>
    <message>
        <source>no server</source>
        <translation>kein Server</translation>
    </message>
    <message>
        <source>(cut to fit)</source>
        <translation>(gekürzt)</translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message>
        <source>%1% of drafted tokens accepted</source>
        <translation>%1 % der entworfenen Tokens angenommen</translation>
    </message>
    <message>
        <source>Speculative decoding is not used: %1. Replies are decoded without it; choose another draft model in the settings.</source>
        <translation>Spekulatives Dekodieren wird nicht verwendet: %1. Antworten werden ohne es dekodiert; wählen Sie in den Einstellungen ein anderes Entwurfsmodell.</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <source>Load a model to start chatting: open the model picker or drop a .gguf file on the window.</source>
        <translation>Laden Sie ein Modell, um zu chatten: Öffnen Sie die Modellauswahl, oder ziehen Sie eine .gguf-Datei auf das Fenster.</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n Token</numerusform>
            <numerusform>%n Tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 tok/s</translation>
    </message>
    <message>
        <source>first token %1 ms</source>
        <translation>erstes Token %1 ms</translation>
    </message>
    <message>
        <source>%1 of %2 prompt tokens reused</source>
        <translation>%1 von %2 Prompt-Tokens wiederverwendet</translation>
    </message>
    <message numerus="yes">
        <source>branch resumed from saved state (%n token(s), %1 ms)</source>
        <translation>
            <numerusform>Zweig aus gespeichertem Zustand fortgesetzt (%n Token, %1 ms)</numerusform>
            <numerusform>Zweig aus gespeichertem Zustand fortgesetzt (%n Tokens, %1 ms)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>resumed from saved state (%n token(s), %1 ms)</source>
        <translation>
            <numerusform>aus gespeichertem Zustand fortgesetzt (%n Token, %1 ms)</numerusform>
            <numerusform>aus gespeichertem Zustand fortgesetzt (%n Tokens, %1 ms)</numerusform>
        </translation>
    </message>
    <message>
        <source>saved state not used</source>
        <translation>gespeicherter Zustand nicht verwendet</translation>
    </message>
    <message>
        <source>older turns left the context</source>
        <translation>ältere Beiträge haben den Kontext verlassen</translation>
    </message>
    <message>
        <source>ended where the context is full</source>
        <translation>endete am vollen Kontext</translation>
    </message>
    <message numerus="yes">
        <source>This reply called tools %n time(s), the most one reply may: it goes on without them.</source>
        <translation>
            <numerusform>Diese Antwort hat %n-mal ein Werkzeug aufgerufen, so oft wie eine Antwort darf: Sie geht ohne Werkzeuge weiter.</numerusform>
            <numerusform>Diese Antwort hat %n-mal Werkzeuge aufgerufen, so oft wie eine Antwort darf: Sie geht ohne Werkzeuge weiter.</numerusform>
        </translation>
    </message>
    <message>
        <source>There is no tool named “%1”.</source>
        <translation>Es gibt kein Werkzeug namens „%1“.</translation>
    </message>
    <message>
        <source>The user did not allow this call.</source>
        <translation>Der Benutzer hat diesen Aufruf nicht erlaubt.</translation>
    </message>
    <message>
        <source>Stopped by the user.</source>
        <translation>Vom Benutzer angehalten.</translation>
    </message>
    <message numerus="yes">
        <source>%n image(s) read in %1 ms</source>
        <translation>
            <numerusform>%n Bild in %1 ms gelesen</numerusform>
            <numerusform>%n Bilder in %1 ms gelesen</numerusform>
        </translation>
    </message>
    <message>
        <source>This conversation shows images, and %1 reads none: load a vision model with its image projector (mmproj) to go on with it.</source>
        <translation>Dieses Gespräch enthält Bilder, und %1 liest keine: Laden Sie ein Bildmodell mit seinem Bildprojektor (mmproj), um es fortzusetzen.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ComputeDeviceList</name>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1 · %2 (cannot run models: %3)</source>
        <translation>%1 · %2 (kann keine Modelle ausführen: %3)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>The best GPU</source>
        <translation>Die beste GPU</translation>
    </message>
    <message>
        <source>%1 (not found)</source>
        <translation>%1 (nicht gefunden)</translation>
    </message>
</context>
<context>
    <name>hearth::app::ConversationExport</name>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>Assistant (%1)</source>
        <translation>Assistent (%1)</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>Werkzeug</translation>
    </message>
    <message>
        <source>Untitled conversation</source>
        <translation>Gespräch ohne Titel</translation>
    </message>
    <message>
        <source>Started %1, last message %2</source>
        <translation>Begonnen %1, letzte Nachricht %2</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>(leer)</translation>
    </message>
    <message>
        <source>(stopped before the end)</source>
        <translation>(vor dem Ende angehalten)</translation>
    </message>
    <message>
        <source>(failed)</source>
        <translation>(fehlgeschlagen)</translation>
    </message>
    <message>
        <source>%1: cannot write the PDF: %2</source>
        <translation>%1: Das PDF kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>%1: the PDF could not be written</source>
        <translation>%1: Das PDF konnte nicht geschrieben werden</translation>
    </message>
    <message>
        <source>image</source>
        <translation>Bild</translation>
    </message>
    <message>
        <source>[image: %1]</source>
        <translation>[Bild: %1]</translation>
    </message>
</context>
<context>
    <name>hearth::app::ConversationFiles</name>
    <message>
        <source>%1: cannot write: %2</source>
        <translation>%1: kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Gespräch</translation>
    </message>
    <message>
        <source>Hearth conversations %1</source>
        <translation>Hearth-Gespräche %1</translation>
    </message>
    <message>
        <source>Unknown export format &quot;%1&quot;</source>
        <translation>Unbekanntes Exportformat „%1“</translation>
    </message>
    <message>
        <source>There is no conversation to export.</source>
        <translation>Es gibt kein Gespräch zum Exportieren.</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: Der Ordner kann nicht angelegt werden</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n conversation(s) to %1</source>
        <translation>
            <numerusform>%n Gespräch nach %1 exportiert</numerusform>
            <numerusform>%n Gespräche nach %1 exportiert</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversation(s)</source>
        <translation>
            <numerusform>%n Gespräch importiert</numerusform>
            <numerusform>%n Gespräche importiert</numerusform>
        </translation>
    </message>
    <message>
        <source>from %1 (%2).</source>
        <translation>aus %1 (%2).</translation>
    </message>
    <message numerus="yes">
        <source>%n conversation(s) without a message were skipped.</source>
        <translation>
            <numerusform>%n Gespräch ohne Nachricht wurde übersprungen.</numerusform>
            <numerusform>%n Gespräche ohne Nachricht wurden übersprungen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::ConversationImport</name>
    <message>
        <source>line %1, column %2</source>
        <translation>Zeile %1, Spalte %2</translation>
    </message>
    <message>
        <source>%1: no such file</source>
        <translation>%1: Diese Datei gibt es nicht</translation>
    </message>
    <message>
        <source>%1 is %2 MB: too big to import (at most %3 MB)</source>
        <translation>%1 ist %2 MB groß: zu groß zum Importieren (höchstens %3 MB)</translation>
    </message>
    <message>
        <source>%1: cannot read: %2</source>
        <translation>%1: kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1: too big to import (at most %2 MB)</source>
        <translation>%1: zu groß zum Importieren (höchstens %2 MB)</translation>
    </message>
    <message>
        <source>%1: the file is empty</source>
        <translation>%1: Die Datei ist leer</translation>
    </message>
    <message>
        <source>%1: %2: not valid JSON: %3</source>
        <translation>%1: %2: kein gültiges JSON: %3</translation>
    </message>
    <message>
        <source>%1: conversation %2</source>
        <translation>%1: Gespräch %2</translation>
    </message>
    <message>
        <source>%1: conversation %2 (&quot;%3&quot;)</source>
        <translation>%1: Gespräch %2 („%3“)</translation>
    </message>
    <message>
        <source>%1: no message has the id &quot;%2&quot;</source>
        <translation>%1: Keine Nachricht hat die ID „%2“</translation>
    </message>
    <message>
        <source>%1: the messages&apos; parents make a cycle through &quot;%2&quot;</source>
        <translation>%1: Die Eltern der Nachrichten bilden einen Kreis über „%2“</translation>
    </message>
    <message>
        <source>%1: neither a Hearth conversation file (an object with &quot;format&quot;: &quot;%2&quot;) nor ChatGPT&apos;s conversations.json (an array of conversations)</source>
        <translation>%1: weder eine Gesprächsdatei von Hearth (ein Objekt mit &quot;format&quot;: &quot;%2&quot;) noch conversations.json von ChatGPT (ein Array von Gesprächen)</translation>
    </message>
    <message>
        <source>%1: the file holds no conversation to import</source>
        <translation>%1: Die Datei enthält kein Gespräch zum Importieren</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is missing or not a string</source>
        <translation>&quot;%1&quot; fehlt oder ist keine Zeichenkette</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an ISO 8601 time (such as 2024-05-01T12:00:00.000Z)</source>
        <translation>&quot;%1&quot; ist keine Zeit nach ISO 8601 (etwa 2024-05-01T12:00:00.000Z)</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is neither a message id nor null</source>
        <translation>&quot;%1&quot; ist weder eine Nachrichten-ID noch null</translation>
    </message>
    <message>
        <source>&quot;state&quot; is &quot;%1&quot;, not one of complete, streaming, stopped, failed</source>
        <translation>&quot;state&quot; ist „%1“, keiner von complete, streaming, stopped, failed</translation>
    </message>
    <message>
        <source>not an object</source>
        <translation>kein Objekt</translation>
    </message>
    <message>
        <source>&quot;id&quot; is empty</source>
        <translation>&quot;id&quot; ist leer</translation>
    </message>
    <message>
        <source>the role &quot;%1&quot; is not one of system, user, assistant, tool</source>
        <translation>die Rolle „%1“ ist keine von system, user, assistant, tool</translation>
    </message>
    <message>
        <source>&quot;model&quot; is not a string</source>
        <translation>&quot;model&quot; ist keine Zeichenkette</translation>
    </message>
    <message>
        <source>&quot;messages&quot; is missing or not an array</source>
        <translation>&quot;messages&quot; fehlt oder ist kein Array</translation>
    </message>
    <message>
        <source>, message %1</source>
        <translation>, Nachricht %1</translation>
    </message>
    <message>
        <source>the id &quot;%1&quot; is used twice</source>
        <translation>die ID „%1“ kommt zweimal vor</translation>
    </message>
    <message>
        <source>message &quot;%1&quot; has the parent &quot;%2&quot;, which is not there</source>
        <translation>Nachricht „%1“ hat das Elternteil „%2“, das es nicht gibt</translation>
    </message>
    <message>
        <source>&quot;currentLeaf&quot; names the message &quot;%1&quot;, which is not there</source>
        <translation>&quot;currentLeaf&quot; nennt die Nachricht „%1“, die es nicht gibt</translation>
    </message>
    <message>
        <source>the format &quot;%1&quot; is not Hearth&apos;s (&quot;%2&quot;)</source>
        <translation>das Format „%1“ ist nicht das von Hearth („%2“)</translation>
    </message>
    <message>
        <source>&quot;version&quot; is missing or not a whole number</source>
        <translation>&quot;version&quot; fehlt oder ist keine ganze Zahl</translation>
    </message>
    <message>
        <source>&quot;conversations&quot; is missing or not an array</source>
        <translation>&quot;conversations&quot; fehlt oder ist kein Array</translation>
    </message>
    <message>
        <source>&quot;mapping&quot; is missing or not an object</source>
        <translation>&quot;mapping&quot; fehlt oder ist kein Objekt</translation>
    </message>
    <message>
        <source>&quot;current_node&quot; names no node of &quot;mapping&quot;</source>
        <translation>&quot;current_node&quot; nennt keinen Knoten von &quot;mapping&quot;</translation>
    </message>
    <message>
        <source>the node &quot;%1&quot; is not an object</source>
        <translation>der Knoten „%1“ ist kein Objekt</translation>
    </message>
    <message>
        <source>the node &quot;%1&quot; has a parent that is not a node id</source>
        <translation>der Knoten „%1“ hat ein Elternteil, das keine Knoten-ID ist</translation>
    </message>
    <message>
        <source>ChatGPT conversation</source>
        <translation>ChatGPT-Gespräch</translation>
    </message>
    <message>
        <source>&quot;active&quot; is not true or false</source>
        <translation>„active“ ist weder true noch false</translation>
    </message>
    <message>
        <source>&quot;tool&quot; is not an object</source>
        <translation>„tool“ ist kein Objekt</translation>
    </message>
    <message>
        <source>&quot;images&quot; is not an object</source>
        <translation>„images“ ist kein Objekt</translation>
    </message>
    <message>
        <source>%1: &quot;images&quot;, the entry &quot;%2&quot;</source>
        <translation>%1: „images“, der Eintrag „%2“</translation>
    </message>
    <message>
        <source>not a string of base64</source>
        <translation>keine Base64-Zeichenkette</translation>
    </message>
    <message>
        <source>not valid base64</source>
        <translation>kein gültiges Base64</translation>
    </message>
    <message>
        <source>the image has no bytes</source>
        <translation>das Bild hat keine Bytes</translation>
    </message>
    <message>
        <source>the SHA-256 of its bytes is %1, not the entry&apos;s name</source>
        <translation>der SHA-256 seiner Bytes ist %1, nicht der Name des Eintrags</translation>
    </message>
    <message>
        <source>&quot;images&quot; is not an array</source>
        <translation>„images“ ist kein Array</translation>
    </message>
    <message>
        <source>, image %1</source>
        <translation>, Bild %1</translation>
    </message>
    <message>
        <source>the file&apos;s &quot;images&quot; holds no picture with the SHA-256 &quot;%1&quot;</source>
        <translation>„images“ der Datei enthält kein Bild mit dem SHA-256 „%1“</translation>
    </message>
    <message>
        <source>version %1 of Hearth&apos;s conversation format is not one this Hearth reads (it reads versions %2 to %3); a newer Hearth may read it</source>
        <translation>Version %1 des Gesprächsformats von Hearth kann diese Hearth-Version nicht lesen (sie liest die Versionen %2 bis %3); eine neuere Hearth-Version kann sie vielleicht lesen</translation>
    </message>
</context>
<context>
    <name>hearth::app::ConversationStore</name>
    <message>
        <source>%1 is locked by another program, so conversations can be neither read nor saved now. Nothing is lost: new messages are kept and saved as soon as it is free.</source>
        <translation>%1 ist von einem anderen Programm gesperrt, daher können Unterhaltungen jetzt weder gelesen noch gespeichert werden. Es geht nichts verloren: Neue Nachrichten werden aufbewahrt und gespeichert, sobald die Datei wieder frei ist.</translation>
    </message>
    <message>
        <source>%1. The conversation stays open and is saved as soon as the disk takes writes again.</source>
        <translation>%1. Die Unterhaltung bleibt geöffnet und wird gespeichert, sobald die Festplatte wieder Daten aufnimmt.</translation>
    </message>
</context>
<context>
    <name>hearth::app::DownloadController</name>
    <message>
        <source>Not downloaded: the catalog gives no SHA-256 for %1, and its address is not a Hugging Face file whose SHA-256 could be asked for, so the file could not be verified.</source>
        <translation>Nicht heruntergeladen: Der Katalog nennt für %1 keine SHA-256-Prüfsumme, und seine Adresse ist keine Hugging-Face-Datei, deren Prüfsumme sich erfragen ließe; die Datei könnte also nicht geprüft werden.</translation>
    </message>
    <message>
        <source>asking Hugging Face for the file&apos;s SHA-256</source>
        <translation>frage Hugging Face nach der SHA-256-Prüfsumme der Datei</translation>
    </message>
    <message>
        <source>Not downloaded: Hugging Face could not be reached (%1). Try again once this computer is online; the SHA-256 that verifies %2 is asked of it first.</source>
        <translation>Nicht heruntergeladen: Hugging Face war nicht erreichbar (%1). Bitte erneut versuchen, sobald dieser Computer online ist; die SHA-256-Prüfsumme, mit der %2 geprüft wird, wird zuerst dort erfragt.</translation>
    </message>
    <message>
        <source>Not downloaded: the catalog gives no SHA-256 for %1 and Hugging Face gave none either (%2), so the file could not be verified.</source>
        <translation>Nicht heruntergeladen: Der Katalog nennt für %1 keine SHA-256-Prüfsumme, und Hugging Face nannte auch keine (%2); die Datei könnte also nicht geprüft werden.</translation>
    </message>
    <message>
        <source>partly downloaded earlier; resume to continue</source>
        <translation>bereits teilweise heruntergeladen; mit „Fortsetzen“ geht es weiter</translation>
    </message>
</context>
<context>
    <name>hearth::app::HearthBackend</name>
    <message>
        <source>Listening on %1, but some allowed entries were ignored. %2</source>
        <translation>Lauscht auf %1, aber einige erlaubte Einträge wurden übergangen. %2</translation>
    </message>
    <message>
        <source>The conversation database was damaged. Hearth kept it as %1 and started a new one, into which it copied the conversations that could still be read (%2).</source>
        <translation>Die Datenbank der Unterhaltungen war beschädigt. Hearth hat sie als %1 aufbewahrt und eine neue angelegt, in die es die noch lesbaren Unterhaltungen (%2) kopiert hat.</translation>
    </message>
    <message>
        <source>The conversation database was damaged and none of its conversations could be read. Hearth kept it as %1 and started a new one.</source>
        <translation>Die Datenbank der Unterhaltungen war beschädigt, und keine ihrer Unterhaltungen war lesbar. Hearth hat sie als %1 aufbewahrt und eine neue angelegt.</translation>
    </message>
</context>
<context>
    <name>hearth::app::HfSearchListModel</name>
    <message>
        <source>no GGUF models found for &quot;%1&quot;</source>
        <translation>keine GGUF-Modelle für „%1“ gefunden</translation>
    </message>
</context>
<context>
    <name>hearth::app::ImageAttachments</name>
    <message>
        <source>No model is loaded: load a vision model with its image projector (mmproj) to attach images.</source>
        <translation>Kein Modell geladen: Laden Sie ein Bildmodell mit seinem Bildprojektor (mmproj), um Bilder anzuhängen.</translation>
    </message>
    <message>
        <source>%1 reads no images: load a vision model with its image projector (mmproj)</source>
        <translation>%1 liest keine Bilder: Laden Sie ein Bildmodell mit seinem Bildprojektor (mmproj)</translation>
    </message>
    <message>
        <source>%1 cannot be attached: only files on this computer can.</source>
        <translation>%1 kann nicht angehängt werden: Nur Dateien auf diesem Computer können angehängt werden.</translation>
    </message>
</context>
<context>
    <name>hearth::app::InferenceWorker</name>
    <message>
        <source>No model is loaded in Hearth. Load one, then try again.</source>
        <translation>In Hearth ist kein Modell geladen. Laden Sie eines, und versuchen Sie es dann erneut.</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>Kein Modell geladen.</translation>
    </message>
    <message>
        <source>Hearth could not use the GPU (%1) and runs the model on the CPU; your conversations are kept. %2</source>
        <translation>Hearth konnte die GPU (%1) nicht nutzen und führt das Modell auf der CPU aus; Ihre Unterhaltungen bleiben erhalten. %2</translation>
    </message>
    <message>
        <source>The GPU (%1) failed, so Hearth runs the model on the CPU from now on; your conversations are kept. %2</source>
        <translation>Die GPU (%1) ist ausgefallen; Hearth führt das Modell von nun an auf der CPU aus. Ihre Unterhaltungen bleiben erhalten. %2</translation>
    </message>
    <message>
        <source>The GPU failed during this reply, so Hearth runs the model on the CPU from now on; regenerate the reply to finish it. %1</source>
        <translation>Die GPU ist während dieser Antwort ausgefallen; Hearth führt das Modell von nun an auf der CPU aus. Erzeugen Sie die Antwort neu, um sie fertigzustellen. %1</translation>
    </message>
    <message>
        <source>The tools could not be given to the model: %1</source>
        <translation>Die Werkzeuge konnten dem Modell nicht übergeben werden: %1</translation>
    </message>
</context>
<context>
    <name>hearth::app::McpClient</name>
    <message>
        <source>was stopped</source>
        <translation>wurde angehalten</translation>
    </message>
    <message>
        <source>MCP server “%1” %2</source>
        <translation>MCP-Server „%1“ %2</translation>
    </message>
    <message>
        <source>could not be started (%1): %2</source>
        <translation>konnte nicht gestartet werden (%1): %2</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>ist abgestürzt</translation>
    </message>
    <message>
        <source>exited with code %1</source>
        <translation>wurde mit Code %1 beendet</translation>
    </message>
    <message>
        <source>stopped: it %1</source>
        <translation>angehalten: Er %1</translation>
    </message>
    <message>
        <source>stopped: it %1 (%2)</source>
        <translation>angehalten: Er %1 (%2)</translation>
    </message>
    <message>
        <source>answered initialize without a protocol version</source>
        <translation>hat auf initialize ohne Protokollversion geantwortet</translation>
    </message>
    <message>
        <source>is not running</source>
        <translation>läuft nicht</translation>
    </message>
    <message>
        <source>did not answer %1 within %2 s</source>
        <translation>hat auf %1 nicht innerhalb von %2 s geantwortet</translation>
    </message>
    <message>
        <source>wrote something that is not a JSON-RPC message: “%1”</source>
        <translation>hat etwas geschrieben, das keine JSON-RPC-Nachricht ist: „%1“</translation>
    </message>
    <message>
        <source>wrote a line longer than %1 MiB</source>
        <translation>hat eine Zeile länger als %1 MiB geschrieben</translation>
    </message>
    <message>
        <source>refused %1: %2 (error %3)</source>
        <translation>hat %1 abgelehnt: %2 (Fehler %3)</translation>
    </message>
    <message>
        <source>answered %1 without a result</source>
        <translation>hat auf %1 ohne Ergebnis geantwortet</translation>
    </message>
</context>
<context>
    <name>hearth::app::McpServerRegistry</name>
    <message>
        <source>Give the server a name.</source>
        <translation>Geben Sie dem Server einen Namen.</translation>
    </message>
    <message>
        <source>Give the command that starts the server.</source>
        <translation>Geben Sie den Befehl an, der den Server startet.</translation>
    </message>
    <message>
        <source>There is a server named “%1” already.</source>
        <translation>Es gibt bereits einen Server namens „%1“.</translation>
    </message>
    <message>
        <source>There is no such server.</source>
        <translation>Diesen Server gibt es nicht.</translation>
    </message>
    <message>
        <source>MCP server “%1” is no longer in the settings.</source>
        <translation>MCP-Server „%1“ ist nicht mehr in den Einstellungen.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelCatalog</name>
    <message>
        <source>names no entry of the catalog</source>
        <translation>nennt keinen Eintrag des Katalogs</translation>
    </message>
    <message>
        <source>names itself</source>
        <translation>nennt sich selbst</translation>
    </message>
    <message>
        <source>is a %1 model, not of this %2 family</source>
        <translation>ist ein %1-Modell, nicht aus dieser %2-Familie</translation>
    </message>
    <message>
        <source>is not smaller than the model</source>
        <translation>ist nicht kleiner als das Modell</translation>
    </message>
    <message>
        <source>more than the parameters</source>
        <translation>mehr als die Parameter</translation>
    </message>
    <message>
        <source>entry %1</source>
        <translation>Eintrag %1</translation>
    </message>
    <message>
        <source>entry %1 (%2)</source>
        <translation>Eintrag %1 (%2)</translation>
    </message>
    <message>
        <source>%1, field &quot;%2&quot;</source>
        <extracomment>%1 is &quot;entry 3 (id)&quot;, %2 a JSON field name such as url, which stays untranslated.</extracomment>
        <translation>%1, Feld „%2“</translation>
    </message>
    <message>
        <source>missing or not a string</source>
        <translation>fehlt oder ist keine Zeichenkette</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>leer</translation>
    </message>
    <message>
        <source>longer than %1 characters</source>
        <translation>länger als %1 Zeichen</translation>
    </message>
    <message>
        <source>contains control characters</source>
        <translation>enthält Steuerzeichen</translation>
    </message>
    <message>
        <source>missing or not a number</source>
        <translation>fehlt oder ist keine Zahl</translation>
    </message>
    <message>
        <source>must be a whole number from 1 to %1</source>
        <translation>muss eine ganze Zahl von 1 bis %1 sein</translation>
    </message>
    <message>
        <source>entry %1: not an object</source>
        <translation>Eintrag %1: kein Objekt</translation>
    </message>
    <message>
        <source>only lowercase letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;</source>
        <translation>nur Kleinbuchstaben, Ziffern, „.“, „_“ und „-“</translation>
    </message>
    <message>
        <source>smaller than the file, which is all loaded</source>
        <translation>kleiner als die Datei, die ganz geladen wird</translation>
    </message>
    <message>
        <source>must be an https:// address on %1</source>
        <translation>muss eine https://-Adresse auf %1 sein</translation>
    </message>
    <message>
        <source>has &apos;.&apos; or &apos;..&apos; in its path</source>
        <translation>hat „.“ oder „..“ im Pfad</translation>
    </message>
    <message>
        <source>does not name a .gguf file</source>
        <translation>nennt keine .gguf-Datei</translation>
    </message>
    <message>
        <source>must be empty or 64 hexadecimal digits</source>
        <translation>muss leer sein oder aus 64 Hexadezimalziffern bestehen</translation>
    </message>
    <message>
        <source>the catalog is larger than %1 bytes</source>
        <translation>der Katalog ist größer als %1 Bytes</translation>
    </message>
    <message>
        <source>the catalog is not valid JSON (%1 at byte %2)</source>
        <translation>der Katalog ist kein gültiges JSON (%1 bei Byte %2)</translation>
    </message>
    <message>
        <source>the catalog is not a JSON object</source>
        <translation>der Katalog ist kein JSON-Objekt</translation>
    </message>
    <message>
        <source>the catalog&apos;s &quot;version&quot; is not 1 (a newer app may read it)</source>
        <translation>das Feld „version“ des Katalogs ist nicht 1 (eine neuere App kann ihn vielleicht lesen)</translation>
    </message>
    <message>
        <source>the catalog has no &quot;models&quot; list</source>
        <translation>der Katalog hat keine Liste „models“</translation>
    </message>
    <message>
        <source>the catalog lists more than %1 models</source>
        <translation>der Katalog führt mehr als %1 Modelle auf</translation>
    </message>
    <message>
        <source>listed twice</source>
        <translation>doppelt aufgeführt</translation>
    </message>
    <message>
        <source>the file name %1 is listed twice</source>
        <translation>der Dateiname %1 ist doppelt aufgeführt</translation>
    </message>
    <message>
        <source>the built-in catalog is missing</source>
        <translation>der eingebaute Katalog fehlt</translation>
    </message>
    <message>
        <source>not an object</source>
        <translation>kein Objekt</translation>
    </message>
    <message>
        <source>%1 projector</source>
        <translation>%1 Projektor</translation>
    </message>
    <message>
        <source>must be 64 hexadecimal digits</source>
        <translation>muss aus 64 Hexadezimalziffern bestehen</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelController</name>
    <message>
        <source> params</source>
        <translation> Parameter</translation>
    </message>
    <message>
        <source>%1 ctx</source>
        <translation>%1 Kontext</translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n Thread</numerusform>
            <numerusform>%n Threads</numerusform>
        </translation>
    </message>
    <message>
        <source>KV %1/%2</source>
        <translation>KV %1/%2</translation>
    </message>
    <message>
        <source>%1: not a GGUF model file (a model&apos;s file name ends in .gguf)</source>
        <translation>%1: keine GGUF-Modelldatei (der Dateiname eines Modells endet auf .gguf)</translation>
    </message>
    <message>
        <source>%1 is a folder: drop one .gguf model file, or choose the folder as the models folder on the Models page</source>
        <translation>%1 ist ein Ordner: Ziehen Sie eine einzelne .gguf-Modelldatei hierher, oder wählen Sie den Ordner auf der Seite „Modelle“ als Modellordner</translation>
    </message>
    <message>
        <source>Nothing was dropped that could be loaded</source>
        <translation>Nichts Ladbares wurde abgelegt</translation>
    </message>
    <message numerus="yes">
        <source>%n files were dropped: drop one model file at a time</source>
        <translation>
            <numerusform>%n Datei wurde abgelegt: bitte immer nur eine Modelldatei ablegen</numerusform>
            <numerusform>%n Dateien wurden abgelegt: bitte immer nur eine Modelldatei ablegen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: wait until %2 has finished loading</source>
        <translation>%1: Warten Sie, bis %2 fertig geladen ist</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>%1 wird geladen</translation>
    </message>
    <message>
        <source>Warming up %1</source>
        <translation>%1 wird vorbereitet</translation>
    </message>
    <message>
        <source>The model could not be loaded: %1</source>
        <translation>Das Modell konnte nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>GPU %1/%2 layers</source>
        <translation>GPU %1/%2 Schichten</translation>
    </message>
    <message>
        <source>%1 reads no images: its image projector could not be loaded: %2</source>
        <translation>%1 liest keine Bilder: Sein Bildprojektor konnte nicht geladen werden: %2</translation>
    </message>
    <message>
        <source>images on the GPU</source>
        <translation>Bilder auf der GPU</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelListModel</name>
    <message>
        <source>%1 params</source>
        <translation>%1 Parameter</translation>
    </message>
</context>
<context>
    <name>hearth::app::PresetController</name>
    <message>
        <source>%1: the file is not there, so its settings were not saved</source>
        <translation>%1: Die Datei ist nicht vorhanden, deshalb wurden ihre Einstellungen nicht gespeichert</translation>
    </message>
    <message>
        <source>%1: the settings were not saved, because the chat template does not parse: %2</source>
        <translation>%1: Die Einstellungen wurden nicht gespeichert, weil sich die Chat-Vorlage nicht lesen lässt: %2</translation>
    </message>
</context>
<context>
    <name>hearth::app::PresetStore</name>
    <message>
        <source>Helpful assistant</source>
        <translation>Hilfreicher Assistent</translation>
    </message>
    <message>
        <source>You are a helpful assistant. Answer clearly and accurately.</source>
        <translation>Du bist ein hilfreicher Assistent. Antworte klar und genau.</translation>
    </message>
    <message>
        <source>Concise</source>
        <translation>Knapp</translation>
    </message>
    <message>
        <source>Answer as briefly as possible: a sentence or a short list, no preamble.</source>
        <translation>Antworte so kurz wie möglich: ein Satz oder eine kurze Liste, ohne Einleitung.</translation>
    </message>
    <message>
        <source>Programmer</source>
        <translation>Programmierer</translation>
    </message>
    <message>
        <source>You are an expert programmer. Give correct, idiomatic code in fenced blocks with the language named, and explain only what is not obvious.</source>
        <translation>Du bist ein erfahrener Programmierer. Gib korrekten, idiomatischen Code in Codeblöcken mit angegebener Sprache und erkläre nur, was nicht offensichtlich ist.</translation>
    </message>
    <message>
        <source>Translator</source>
        <translation>Übersetzer</translation>
    </message>
    <message>
        <source>Translate the user&apos;s text into English (or, if it is English, into German). Reply with the translation only.</source>
        <translation>Übersetze den Text des Benutzers ins Englische (oder, wenn er englisch ist, ins Deutsche). Antworte nur mit der Übersetzung.</translation>
    </message>
</context>
<context>
    <name>hearth::app::SingleInstance</name>
    <message>
        <source>Hearth is already running with %1 but does not answer: %2</source>
        <translation>Hearth läuft bereits mit %1, antwortet aber nicht: %2</translation>
    </message>
    <message>
        <source>Hearth is already running with %1 but did not take the request: %2</source>
        <translation>Hearth läuft bereits mit %1, hat die Anfrage aber nicht angenommen: %2</translation>
    </message>
</context>
<context>
    <name>hearth::app::SpeedPredictor</name>
    <message>
        <source>Memory read %1 GB/s, Q4_K prompts at %2 GFLOP/s (threads: %3)</source>
        <translation>Speicher lesen %1 GB/s, Q4_K-Prompts mit %2 GFLOP/s (Threads: %3)</translation>
    </message>
    <message>
        <source>≈ %1 tok/s on this computer</source>
        <translation>≈ %1 Token/s auf diesem Computer</translation>
    </message>
    <message>
        <source>%1, fits in memory</source>
        <translation>%1, passt in den Speicher</translation>
    </message>
    <message>
        <source>%1, tight in memory</source>
        <translation>%1, knapp im Speicher</translation>
    </message>
    <message>
        <source>%1 if it fitted: too large for its memory</source>
        <translation>%1, wenn es passte: zu groß für den Speicher</translation>
    </message>
</context>
<context>
    <name>hearth::app::ToolCalls</name>
    <message>
        <source>

[Hearth cut this result: it shows the first %1 of %2 characters.]</source>
        <translation>

[Hearth hat dieses Ergebnis gekürzt: Es zeigt die ersten %1 von %2 Zeichen.]</translation>
    </message>
</context>
<context>
    <name>hearth::download::Download</name>
    <message>
        <source>paused at %1</source>
        <translation>angehalten bei %1</translation>
    </message>
    <message>
        <source>verified (SHA-256)</source>
        <translation>geprüft (SHA-256)</translation>
    </message>
    <message>
        <source>complete; checksum unknown, only the size was checked</source>
        <translation>vollständig; Prüfsumme unbekannt, nur die Größe wurde geprüft</translation>
    </message>
    <message>
        <source>not enough disk space in %1: the download needs %2 more, and %3 is free</source>
        <translation>nicht genug Speicherplatz in %1: Der Download braucht noch %2, frei sind %3</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>the server sent part of the file without saying which part</source>
        <translation>der Server hat einen Teil der Datei gesendet, ohne zu sagen, welchen</translation>
    </message>
    <message>
        <source>the server cannot resume downloads; starting again from the beginning</source>
        <translation>der Server kann Downloads nicht fortsetzen; der Download beginnt von vorn</translation>
    </message>
    <message>
        <source>the disk is full: %1 could not be written</source>
        <translation>der Datenträger ist voll: %1 konnte nicht geschrieben werden</translation>
    </message>
    <message>
        <source>checking the file already there</source>
        <translation>prüfe die bereits vorhandene Datei</translation>
    </message>
    <message>
        <source>checking the %1 downloaded earlier</source>
        <translation>prüfe die bereits heruntergeladenen %1</translation>
    </message>
    <message>
        <source>cannot read the partial file %1</source>
        <translation>die Teildatei %1 kann nicht gelesen werden</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not an http:// or https:// address</source>
        <translation>„%1“ ist keine http://- oder https://-Adresse</translation>
    </message>
    <message>
        <source>the SHA-256 must be 64 hexadecimal digits</source>
        <translation>die SHA-256-Prüfsumme muss aus 64 Hexadezimalziffern bestehen</translation>
    </message>
    <message>
        <source>cannot create the folder %1</source>
        <translation>der Ordner %1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>%1 already exists and is a different file; move it away to download it again</source>
        <translation>%1 existiert bereits und ist eine andere Datei; verschieben Sie sie, um sie erneut herunterzuladen</translation>
    </message>
    <message>
        <source>resuming at %1</source>
        <translation>setze bei %1 fort</translation>
    </message>
    <message>
        <source>the server does not send the part of the file that was asked for</source>
        <translation>der Server sendet nicht den angefragten Teil der Datei</translation>
    </message>
    <message>
        <source>the partial file did not fit the server&apos;s file; starting again</source>
        <translation>die Teildatei passte nicht zur Datei auf dem Server; der Download beginnt von vorn</translation>
    </message>
    <message>
        <source>the server sent %1 of %2 and stopped</source>
        <translation>der Server hat %1 von %2 gesendet und dann aufgehört</translation>
    </message>
    <message>
        <source>%1; reconnecting</source>
        <translation>%1; verbinde erneut</translation>
    </message>
    <message>
        <source>%1 (%2 kept; start again to resume)</source>
        <translation>%1 (%2 aufbewahrt; starten Sie erneut, um fortzusetzen)</translation>
    </message>
    <message>
        <source>checksum mismatch: expected SHA-256 %1, received %2; the received file is kept as %3 for inspection and is not loaded</source>
        <translation>Prüfsumme stimmt nicht: erwartet war SHA-256 %1, empfangen %2; die empfangene Datei wird zur Prüfung als %3 aufbewahrt und nicht geladen</translation>
    </message>
    <message>
        <source>checksum mismatch: expected SHA-256 %1, received %2; the received file was deleted</source>
        <translation>Prüfsumme stimmt nicht: erwartet war SHA-256 %1, empfangen %2; die empfangene Datei wurde gelöscht</translation>
    </message>
    <message>
        <source>the file has %1 bytes, the server announced %2</source>
        <translation>die Datei hat %1 Bytes, der Server hatte %2 angekündigt</translation>
    </message>
    <message>
        <source>cannot rename %1 to %2</source>
        <translation>%1 kann nicht in %2 umbenannt werden</translation>
    </message>
</context>
<context>
    <name>hearth::download::DownloadFileName</name>
    <message>
        <source>the URL names no file</source>
        <translation>die URL nennt keine Datei</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a path, not a file name</source>
        <translation>„%1“ ist ein Pfad, kein Dateiname</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a usable file name</source>
        <translation>„%1“ ist kein verwendbarer Dateiname</translation>
    </message>
    <message>
        <source>the file name contains control characters</source>
        <translation>der Dateiname enthält Steuerzeichen</translation>
    </message>
    <message>
        <source>the file name is longer than 200 characters</source>
        <translation>der Dateiname ist länger als 200 Zeichen</translation>
    </message>
</context>
<context>
    <name>hearth::download::DownloadMessages</name>
    <message>
        <source>%1 bytes</source>
        <translation>%1 Bytes</translation>
    </message>
    <message>
        <source>no network, or the server %1 does not exist (its name could not be looked up)</source>
        <translation>kein Netzwerk, oder der Server %1 existiert nicht (sein Name ließ sich nicht auflösen)</translation>
    </message>
    <message>
        <source>could not connect to %1: the server refused the connection</source>
        <translation>keine Verbindung zu %1: Der Server hat die Verbindung abgelehnt</translation>
    </message>
    <message>
        <source>the server %1 closed the connection before the file was complete</source>
        <translation>der Server %1 hat die Verbindung geschlossen, bevor die Datei vollständig war</translation>
    </message>
    <message>
        <source>the server %1 stopped answering</source>
        <translation>der Server %1 antwortet nicht mehr</translation>
    </message>
    <message>
        <source>the secure connection to %1 could not be established (certificate problem)</source>
        <translation>die sichere Verbindung zu %1 ließ sich nicht aufbauen (Zertifikatsproblem)</translation>
    </message>
    <message>
        <source>the network connection was lost</source>
        <translation>die Netzwerkverbindung ist abgebrochen</translation>
    </message>
    <message>
        <source>the system&apos;s proxy server could not be used</source>
        <translation>der Proxyserver des Systems ließ sich nicht verwenden</translation>
    </message>
    <message>
        <source>only http:// and https:// addresses can be downloaded</source>
        <translation>nur http://- und https://-Adressen lassen sich herunterladen</translation>
    </message>
    <message>
        <source>the download from %1 failed (network error %2)</source>
        <translation>der Download von %1 ist fehlgeschlagen (Netzwerkfehler %2)</translation>
    </message>
    <message>
        <source>the server refused access to the file (HTTP %1); it may need a login</source>
        <translation>der Server hat den Zugriff auf die Datei verweigert (HTTP %1); vielleicht ist eine Anmeldung nötig</translation>
    </message>
    <message>
        <source>the file was not found on the server (HTTP %1)</source>
        <translation>die Datei wurde auf dem Server nicht gefunden (HTTP %1)</translation>
    </message>
    <message>
        <source>the server is busy or limiting downloads (HTTP 429); try again later</source>
        <translation>der Server ist ausgelastet oder begrenzt Downloads (HTTP 429); versuchen Sie es später erneut</translation>
    </message>
    <message>
        <source>the server had a problem (HTTP %1 %2)</source>
        <translation>der Server hatte ein Problem (HTTP %1 %2)</translation>
    </message>
    <message>
        <source>the server answered HTTP %1 %2</source>
        <translation>der Server antwortete mit HTTP %1 %2</translation>
    </message>
    <message>
        <source>%1 of %2 (%3%)</source>
        <extracomment>&quot;12.3 MB of 400 MB (3%)&quot;: received, total, percent.</extracomment>
        <translation>%1 von %2 (%3 %)</translation>
    </message>
    <message>
        <source>%1, %2 left</source>
        <translation>%1, noch %2</translation>
    </message>
</context>
<context>
    <name>hearth::download::HuggingFace</name>
    <message>
        <source>Hugging Face sent an answer that is not valid JSON (%1)</source>
        <translation>Hugging Face hat eine Antwort gesendet, die kein gültiges JSON ist (%1)</translation>
    </message>
    <message>
        <source>Hugging Face&apos;s answer is too large</source>
        <translation>die Antwort von Hugging Face ist zu groß</translation>
    </message>
    <message>
        <source>Hugging Face&apos;s answer is not a list of models</source>
        <translation>die Antwort von Hugging Face ist keine Liste von Modellen</translation>
    </message>
    <message>
        <source>the file list of %1 is too large</source>
        <translation>die Dateiliste von %1 ist zu groß</translation>
    </message>
    <message>
        <source>Hugging Face did not send the file list of %1</source>
        <translation>Hugging Face hat die Dateiliste von %1 nicht gesendet</translation>
    </message>
    <message>
        <source>the request to Hugging Face was stopped</source>
        <translation>die Anfrage an Hugging Face wurde abgebrochen</translation>
    </message>
    <message>
        <source>type part of a model&apos;s name to search for</source>
        <translation>geben Sie einen Teil eines Modellnamens ein, um danach zu suchen</translation>
    </message>
    <message>
        <source>the search is longer than %1 characters</source>
        <translation>die Suche ist länger als %1 Zeichen</translation>
    </message>
    <message>
        <source>the search failed: %1</source>
        <translation>die Suche ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>asking Hugging Face for the file list of %1 failed: %2</source>
        <translation>die Anfrage an Hugging Face nach der Dateiliste von %1 ist fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Hugging Face lists %1 in %2 without a SHA-256</source>
        <translation>Hugging Face führt %1 in %2 ohne SHA-256-Prüfsumme auf</translation>
    </message>
    <message>
        <source>Hugging Face does not list %1 in %2</source>
        <translation>Hugging Face führt %1 in %2 nicht auf</translation>
    </message>
</context>
<context>
    <name>hearth::server::ApiServer</name>
    <message>
        <source>You didn&apos;t provide an API key. Send it as &quot;Authorization: Bearer KEY&quot;.</source>
        <translation>Es wurde kein API-Schlüssel angegeben. Senden Sie ihn als „Authorization: Bearer KEY“.</translation>
    </message>
    <message>
        <source>Incorrect API key provided.</source>
        <translation>Der angegebene API-Schlüssel ist falsch.</translation>
    </message>
    <message>
        <source>Method %1 is not allowed for %2 (use %3).</source>
        <translation>Die Methode %1 ist für %2 nicht erlaubt (verwenden Sie %3).</translation>
    </message>
    <message>
        <source>The model &apos;%1&apos; does not exist.</source>
        <translation>Das Modell „%1“ existiert nicht.</translation>
    </message>
    <message>
        <source>Invalid URL (%1 %2).</source>
        <translation>Ungültige URL (%1 %2).</translation>
    </message>
    <message>
        <source>No model is loaded in Hearth. Load one, then try again.</source>
        <translation>In Hearth ist kein Modell geladen. Laden Sie eines, und versuchen Sie es dann erneut.</translation>
    </message>
    <message>
        <source>The model &apos;%1&apos; does not exist; this server runs &apos;%2&apos;.</source>
        <translation>Das Modell „%1“ existiert nicht; dieser Server betreibt „%2“.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Chat with language models on your own computer.</source>
        <translation>Mit Sprachmodellen auf dem eigenen Computer chatten.</translation>
    </message>
    <message>
        <source>Keep conversations in &lt;dir&gt; (default: the standard app-data place).</source>
        <translation>Gespräche in &lt;dir&gt; aufbewahren (Standard: der übliche Ort für App-Daten).</translation>
    </message>
    <message>
        <source>Read and write settings in the INI file &lt;file&gt;.</source>
        <translation>Einstellungen in der INI-Datei &lt;file&gt; lesen und schreiben.</translation>
    </message>
    <message>
        <source>A .gguf model file to load.</source>
        <translation>Eine zu ladende .gguf-Modelldatei.</translation>
    </message>
</context>
</TS>
