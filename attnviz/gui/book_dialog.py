"""Help ▸ Book figures: every attention figure of the curriculum (d2l.ai's attention chapters and
"Attention Is All You Need"), computed by attnviz's own code, each exportable and, where the app
has a view for it, shown live in the window (the user then changes the sentence, the head, the
bandwidth …)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from attnviz.figures.book import BookEntry, BookFigure, Live, in_edition_order
from attnviz.figures.editions import DEFAULT_EDITION, EDITION_NAMES, EDITIONS, NOT_IN_BOOK_HEADING
from attnviz.figures.spec import AnyFigure, NamedFigure
from attnviz.gui.screen_fit import open_within_screen
from attnviz.i18n import tr
from attnviz.render.figure_painter import figure_size, paint_figure


class FigureView(QtWidgets.QWidget):
    """Any figure description (heatmap, small multiples, line plot) painted to fit the widget, with
    the painter the exports use: what is exported is what is shown."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.figure: AnyFigure | None = None
        self.message = ""
        self.setMinimumSize(320, 240)

    def show_figure(self, figure: AnyFigure | None, message: str = "") -> None:
        self.figure, self.message = figure, message
        self.update()

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.fillRect(self.rect(), QtGui.QColor("white"))
        if self.figure is None:
            painter.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter, self.message)
            return
        size = figure_size(self.figure)
        scale = min(self.width() / size.width(), self.height() / size.height())
        painter.translate((self.width() - size.width() * scale) / 2, (self.height() - size.height() * scale) / 2)
        painter.scale(scale, scale)
        paint_figure(painter, self.figure)
        painter.end()


class BookDialog(QtWidgets.QDialog):
    """The list of book figures beside the chosen one, its sections numbered as the chosen edition of
    the book numbers them (the other edition's number beside). ``ask_figure(key)`` computes an entry
    (the result arrives through ``show_book``); ``show_live(live)``, ``export`` and ``copy`` are the
    window's; ``edition_changed(edition)`` is told when the user picks the other numbering."""

    def __init__(self, entries: list[BookEntry], ask_figure: Callable[[str], None],
                 show_live: Callable[[Live], None], export: Callable[[NamedFigure], None],
                 copy: Callable[[NamedFigure], None], parent: QtWidgets.QWidget | None = None,
                 edition: str = DEFAULT_EDITION, edition_changed: Callable[[str], None] | None = None):
        super().__init__(parent)
        self.setWindowTitle(tr("Book figures — attnviz"))
        self.entries = {entry.key: entry for entry in entries}
        self._ask_figure, self._show_live, self._export, self._copy = ask_figure, show_live, export, copy
        self._edition_changed = edition_changed
        self.edition = edition if edition in EDITIONS else DEFAULT_EDITION
        self.book: BookFigure | None = None
        self.edition_box = QtWidgets.QComboBox()
        for key in EDITIONS:
            self.edition_box.addItem(tr(EDITION_NAMES[key]), key)
        self.edition_box.setCurrentIndex(EDITIONS.index(self.edition))
        self.edition_box.setToolTip(tr("The edition of “Dive into Deep Learning” you read: its section numbers "
                                       "are the ones shown (the other edition's number stands beside)"))
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setMinimumWidth(360)
        self._fill_tree()
        self.caption = QtWidgets.QLabel(tr("Choose a figure on the left."))
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.view = FigureView()
        self.live_button = QtWidgets.QPushButton(tr("Show live in the window"))
        self.live_button.setToolTip(tr("Load the model and open the panel that shows this figure, so you can "
                                       "change the sentence, the head or the bandwidth"))
        self.export_button = QtWidgets.QPushButton(tr("Export…"))
        self.copy_button = QtWidgets.QPushButton(tr("Copy picture"))
        buttons = QtWidgets.QHBoxLayout()
        for button in (self.live_button, self.export_button, self.copy_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.caption)
        right.addWidget(self.view, 1)
        right.addLayout(buttons)
        left = QtWidgets.QVBoxLayout()
        numbering = QtWidgets.QLabel(tr("Section numbers of"))
        numbering.setBuddy(self.edition_box)
        left.addWidget(numbering)
        left.addWidget(self.edition_box)
        left.addWidget(self.tree, 1)
        layout = QtWidgets.QHBoxLayout(self)
        layout.addLayout(left)
        layout.addLayout(right, 1)
        open_within_screen(self, QtCore.QSize(1100, 680))  # (at 1024×768: the screen, its frame in view)
        self.tree.currentItemChanged.connect(self._on_current_item_changed)
        self.edition_box.currentIndexChanged.connect(self._on_edition_box_changed)
        self.live_button.clicked.connect(self._on_live_clicked)
        self.export_button.clicked.connect(lambda: self._export(self.named()) if self.book else None)
        self.copy_button.clicked.connect(lambda: self._copy(self.named()) if self.book else None)
        self._enable()

    def _fill_tree(self) -> None:
        """The entries under their sections' headings, numbered as ``self.edition`` numbers them; the figures
        that edition does not have last, under "Not in the book" (each one's tooltip says its section)."""
        self.tree.clear()
        groups: dict[str, QtWidgets.QTreeWidgetItem] = {}
        for entry in in_edition_order(self.entries.values(), self.edition):
            supplement = entry.supplementary(self.edition)
            group = "" if supplement else entry.topic  # (no topic is "")
            if group not in groups:
                heading = tr(NOT_IN_BOOK_HEADING) if supplement else entry.section.heading(self.edition)
                groups[group] = QtWidgets.QTreeWidgetItem(self.tree, [heading])
                groups[group].setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
                groups[group].setToolTip(0, heading)
            caption = tr(entry.caption)  # (the gallery marks its captions for translation)
            item = QtWidgets.QTreeWidgetItem(groups[group], [caption])
            item.setData(0, QtCore.Qt.ItemDataRole.UserRole, entry.key)
            item.setToolTip(0, tr("{heading} — {caption} (file {key})").format(
                heading=entry.heading(self.edition), caption=caption, key=entry.file_stem(self.edition)))
        self.tree.expandAll()

    def set_edition(self, edition: str) -> None:
        """Number the sections as ``edition`` does (the chosen figure stays chosen)."""
        if edition not in EDITIONS or edition == self.edition:
            return
        self.edition = edition
        current = self.tree.currentItem()
        key = current.data(0, QtCore.Qt.ItemDataRole.UserRole) if current is not None else None
        self.tree.blockSignals(True)
        self._fill_tree()
        if key:
            self.select(key)
        self.tree.blockSignals(False)
        if key in self.entries:
            self._show_caption(self.entries[key])
        self.edition_box.blockSignals(True)
        self.edition_box.setCurrentIndex(EDITIONS.index(edition))
        self.edition_box.blockSignals(False)

    def _on_edition_box_changed(self, index: int) -> None:
        self.set_edition(EDITIONS[index])
        if self._edition_changed is not None:
            self._edition_changed(self.edition)

    def _show_caption(self, entry: BookEntry) -> None:
        section, caption = entry.label(self.edition), tr(entry.caption)
        if entry.live is None:
            text = tr("{section} — {caption}.").format(section=section, caption=caption)
        else:
            text = tr("{section} — {caption}. It can be shown live in the window.").format(section=section,
                                                                                         caption=caption)
            if entry.live.note:
                text = tr("{sentence} {note}").format(sentence=text, note=tr(entry.live.note))
        self.caption.setText(text)

    def select(self, key: str) -> None:
        """Choose entry ``key`` (as a click on it does)."""
        for item in self.tree.findItems("*", QtCore.Qt.MatchFlag.MatchWildcard | QtCore.Qt.MatchFlag.MatchRecursive):
            if item.data(0, QtCore.Qt.ItemDataRole.UserRole) == key:
                self.tree.setCurrentItem(item)
                return
        raise KeyError(key)

    def named(self) -> NamedFigure:
        assert self.book is not None
        return NamedFigure(self.book.entry.file_stem(self.edition), self.book.figure)  # (as `attnviz figures` names it)

    def show_book(self, book: BookFigure | None) -> None:
        """The session's latest book figure (only the one chosen last is shown)."""
        current = self.tree.currentItem()
        key = current.data(0, QtCore.Qt.ItemDataRole.UserRole) if current is not None else None
        if book is None or book.entry.key != key:
            return
        self.book = book
        self.view.show_figure(book.figure)
        self._enable()

    def _on_current_item_changed(self, item: QtWidgets.QTreeWidgetItem | None, _previous=None) -> None:
        key = item.data(0, QtCore.Qt.ItemDataRole.UserRole) if item is not None else None
        entry = self.entries.get(key) if key else None
        self.book = None
        self._enable()
        if entry is None:
            return
        self._show_caption(entry)
        self.view.show_figure(None, tr("Computing…"))
        self._ask_figure(entry.key)

    def _on_live_clicked(self) -> None:
        """The figure live in the window: the dialog steps aside (it covered the window, so nothing seemed to
        change); Help ▸ Book figures brings it back on the same figure."""
        if self.book is not None and self.book.entry.live is not None:
            self.hide()
            self._show_live(self.book.entry.live)

    def _enable(self) -> None:
        ready = self.book is not None
        self.export_button.setEnabled(ready)
        self.copy_button.setEnabled(ready)
        self.live_button.setEnabled(ready and self.book is not None and self.book.entry.live is not None)
