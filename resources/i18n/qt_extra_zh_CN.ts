<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- Qt's own dialogs: strings whose English changed in Qt 6.11 while qtbase_zh_CN.qm still has the old ones
     (the file dialog's "&Look in:", "Files of &type:", its "Folder" type), and key names qtbase_zh_CN.qm leaves in
     English (PgUp, PgDown: the lecture view's layer keys, as menus show them). Loaded after qtbase_zh_CN.qm. -->
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>QFileDialog</name>
    <message><source>&amp;Look in:</source><translation>查找范围(&amp;L)：</translation></message>
    <message><source>Files of &amp;type:</source><translation>文件类型(&amp;T)：</translation></message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message><source>Folder</source><translation>文件夹</translation></message>
    <message><source>File Folder</source><translation>文件夹</translation></message>
    <message><source>Drive</source><translation>驱动器</translation></message>
    <message><source>File</source><translation>文件</translation></message>
</context>
<context>
    <name>QFileSystemModel</name>
    <message><source>Folder</source><translation>文件夹</translation></message>
    <message><source>File Folder</source><translation>文件夹</translation></message>
    <message><source>Drive</source><translation>驱动器</translation></message>
    <message><source>File</source><translation>文件</translation></message>
</context>
<context>
    <name>QShortcut</name>
    <message><source>PgUp</source><translation>上翻页</translation></message>
    <message><source>PgDown</source><translation>下翻页</translation></message>
</context>
</TS>
