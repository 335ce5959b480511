<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- English plural forms: the source strings use %n, and only a translation gives "1 thread" and
     "2 threads" their own forms. Every other English string is its own source text. -->
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>MessageDelegate</name>
    <message numerus="yes">
        <source>The model sees %n token(s) at a time (its context), and this conversation no longer fits: the oldest messages were let go to make room for the reply.</source>
        <translation>
            <numerusform>The model sees %n token at a time (its context), and this conversation no longer fits: the oldest messages were let go to make room for the reply.</numerusform>
            <numerusform>The model sees %n tokens at a time (its context), and this conversation no longer fits: the oldest messages were let go to make room for the reply.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>This model was trained for %n token(s) at most; a model with a longer context keeps more in view.</source>
        <translation>
            <numerusform>This model was trained for %n token at most; a model with a longer context keeps more in view.</numerusform>
            <numerusform>This model was trained for %n tokens at most; a model with a longer context keeps more in view.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MetricsPanel</name>
    <message numerus="yes">
        <source>%n request(s) answered</source>
        <translation>
            <numerusform>%n request answered</numerusform>
            <numerusform>%n requests answered</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n image(s) in the last prompt</source>
        <translation>
            <numerusform>%n image in the last prompt</numerusform>
            <numerusform>%n images in the last prompt</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message numerus="yes">
        <source>%n image(s) read in %1 ms</source>
        <translation>
            <numerusform>%n image read in %1 ms</numerusform>
            <numerusform>%n images read in %1 ms</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>This reply called tools %n time(s), the most one reply may: it goes on without them.</source>
        <translation>
            <numerusform>This reply called tools %n time, the most one reply may: it goes on without them.</numerusform>
            <numerusform>This reply called tools %n times, the most one reply may: it goes on without them.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>branch resumed from saved state (%n token(s), %1 ms)</source>
        <translation>
            <numerusform>branch resumed from saved state (%n token, %1 ms)</numerusform>
            <numerusform>branch resumed from saved state (%n tokens, %1 ms)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>resumed from saved state (%n token(s), %1 ms)</source>
        <translation>
            <numerusform>resumed from saved state (%n token, %1 ms)</numerusform>
            <numerusform>resumed from saved state (%n tokens, %1 ms)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelController</name>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n thread</numerusform>
            <numerusform>%n threads</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files were dropped: drop one model file at a time</source>
        <translation>
            <numerusform>%n file was dropped: drop one model file at a time</numerusform>
            <numerusform>%n files were dropped: drop one model file at a time</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::ConversationFiles</name>
    <message numerus="yes">
        <source>Exported %n conversation(s) to %1</source>
        <translation>
            <numerusform>Exported %n conversation to %1</numerusform>
            <numerusform>Exported %n conversations to %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n conversation(s)</source>
        <translation>
            <numerusform>Imported %n conversation</numerusform>
            <numerusform>Imported %n conversations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n conversation(s) without a message were skipped.</source>
        <translation>
            <numerusform>%n conversation without a message was skipped.</numerusform>
            <numerusform>%n conversations without a message were skipped.</numerusform>
        </translation>
    </message>
</context>
</TS>
