<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- English plural forms: the source strings use %n, and only a translation gives "1 thread" and
     "2 threads" their own forms. Every other English string is its own source text. -->
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>hearth::app::ModelController</name>
    <message numerus="yes">
        <source>%n thread(s)</source>
        <translation>
            <numerusform>%n thread</numerusform>
            <numerusform>%n threads</numerusform>
        </translation>
    </message>
</context>
</TS>
