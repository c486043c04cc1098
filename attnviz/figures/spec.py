"""The description of a figure: a matrix (or small multiples of matrices) with labels, a title and a
colour range. numpy only; :mod:`attnviz.render.figure_painter` paints it, :mod:`attnviz.gui.heatmap`
shows it on screen."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attnviz.i18n import tr

MAX_GRID_PX = 560  # the longer side of the cell grid at scale 1


@dataclass(frozen=True)
class FigureSpec:
    """One heatmap. values (Q, K); masked (Q, K) bool cells drawn as "masked", never as a value, or None;
    levels (low, high): the colour range; colormap: a pyqtgraph name or attnviz's "mask"."""

    values: np.ndarray
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    title: str
    levels: tuple[float, float] = (0.0, 1.0)
    colormap: str = "viridis"
    masked: np.ndarray | None = None
    row_axis: str = field(default_factory=lambda: tr("queries"))  # (translated when the figure is made)
    col_axis: str = field(default_factory=lambda: tr("keys"))
    colour_bar: bool = True
    max_grid_px: float = MAX_GRID_PX  # the longer side of the cell grid at scale 1
    row_values: np.ndarray | None = None  # (Q,) increasing numbers the rows stand for: round ticks of them
    col_values: np.ndarray | None = None  # (K,) likewise for the columns (None: the labels themselves)
    divider: int = 0  # a line before row and column ``divider`` (a decoder-only model's prompt | answer); 0: none
    hidden_rows: int = 0  # the last rows are steps not decoded yet (a flip-book frame): blank, labels measured only
    bar_min_px: float = 120.0  # the colour bar is the grid's height, but at least this (at scale 1; 0: the grid's)
    # an image the cells are laid over (an overlay of attention on the picture an image model read): (Hp, Wp, 3)
    # float in [0, 1], stretched to the cell grid and drawn under the cells, which are drawn at ``opacity``
    picture: np.ndarray | None = None
    opacity: float = 1.0
    marked: tuple[int, int] | None = None  # (row, column) of a cell outlined (the query's patch); None: none
    ticks: bool = True  # draw the row and column labels (a small multiple's may be left out: its exports keep them)


@dataclass(frozen=True)
class GridSpec:
    """Small multiples under one title and one shared colour bar: ``panels[r * columns + c]``.

    Each panel is a FigureSpec drawn without its own colour bar; all share ``levels``. row_names
    (one per grid row, e.g. "layer 1") and col_names (one per column, e.g. "head 2") name the panels
    in the numbers exports.
    """

    panels: tuple[FigureSpec, ...]
    columns: int
    title: str
    levels: tuple[float, float]
    row_names: tuple[str, ...]
    col_names: tuple[str, ...]
    colormap: str = "viridis"
    shared_bar: bool = True  # False: each panel draws its own colour bar (panels on different scales)
    name_columns: tuple[str, str] = ("layer", "head")  # the numbers export's headers for row_names and col_names

    @property
    def values(self) -> np.ndarray:
        """(rows, columns, Q, K): every panel's values (panels of different shapes — two image models' patch grids —
        padded with NaN to the largest)."""
        if not self.panels:
            return np.zeros((0, 0, 0, 0), np.float32)
        shapes = {p.values.shape for p in self.panels}
        if len(shapes) > 1:
            rows, cols = (max(shape[axis] for shape in shapes) for axis in (0, 1))
            padded = np.full((len(self.panels), rows, cols), np.nan, np.float32)
            for index, panel in enumerate(self.panels):
                padded[index, : panel.values.shape[0], : panel.values.shape[1]] = panel.values
            return padded.reshape(len(self.row_names), self.columns, rows, cols)
        stack = np.stack([p.values for p in self.panels])
        return stack.reshape(len(self.row_names), self.columns, *stack.shape[1:])


@dataclass(frozen=True)
class Series:
    """One named series of a line plot: x and y (N,), drawn as a line, as points or as bars."""

    name: str
    x: np.ndarray
    y: np.ndarray
    style: str = "line"  # "line", "points", "bars" or "dashed"


@dataclass(frozen=True)
class LineSpec:
    """A line plot (curves, points, bars) with axis labels and a legend; CSV export writes its series."""

    series: tuple[Series, ...]
    title: str
    x_label: str = "x"
    y_label: str = "y"
    y_range: tuple[float, float] | None = None  # None: fitted to the data
    x_ticks: tuple[tuple[float, str], ...] | None = None  # (value, label) on the x axis; None: round values

    @property
    def values(self) -> np.ndarray:
        """Every y value, flattened (an empty plot has none): what "nothing to export" checks."""
        return np.concatenate([np.asarray(s.y, np.float64).ravel() for s in self.series]) if self.series \
            else np.zeros(0)


ROOT_TOKEN = "<bos>"


@dataclass(frozen=True)
class TreeNode:
    """One kept prefix: its tokens (without <bos>), log-probability, whether it ended (<eos>), was pruned,
    lies on the best hypothesis's path; ``step`` and ``beam``: where its attention is recorded."""

    tokens: tuple[str, ...]
    log_prob: float
    finished: bool
    pruned: bool
    best: bool
    step: int
    beam: int

    @property
    def token(self) -> str:
        return self.tokens[-1] if self.tokens else ROOT_TOKEN


@dataclass(frozen=True)
class TreeSpec:
    """A beam tree: nodes (the root, <bos>, first), each node's parent index (-1 for the root), and its
    position: column (depth) and row (in leaf units); ``selected``: the node whose attention is shown."""

    nodes: tuple[TreeNode, ...]
    parents: tuple[int, ...]
    columns: tuple[int, ...]
    rows: tuple[float, ...]
    title: str
    selected: int | None = None

    @property
    def values(self) -> np.ndarray:
        """(N, 2): each node's depth and log-probability (what the numbers exports write)."""
        return np.array([[len(n.tokens), n.log_prob] for n in self.nodes], np.float64).reshape(-1, 2)


@dataclass(frozen=True)
class StackSpec:
    """Figures one above the other, at the left edge (a training snapshot: the probe's map over the curves so
    far); flip-books and pictures only (its numbers are the first part's)."""

    parts: tuple[FigureSpec | GridSpec | LineSpec, ...]

    @property
    def values(self) -> np.ndarray:
        return self.parts[0].values if self.parts else np.zeros((0, 0), np.float32)

    @property
    def title(self) -> str:
        return self.parts[0].title if self.parts else ""


AnyFigure = FigureSpec | GridSpec | LineSpec | TreeSpec | StackSpec


@dataclass(frozen=True)
class NamedFigure:
    """A figure and the file stem it is exported under (e.g. ``cross_layer1_head2_step03``)."""

    stem: str
    spec: AnyFigure


def empty_figure(title: str) -> FigureSpec:
    """A figure with no cells, only a message as its title ("Loading…", "Type a sentence…")."""
    return FigureSpec(np.zeros((0, 0), np.float32), (), (), title, colour_bar=False)


def fit_levels(values: np.ndarray, masked: np.ndarray | None = None) -> tuple[float, float]:
    """Colour range for unbounded data (scores): the min and max of the finite, unmasked values,
    never an empty range. Masked cells hold no value and never widen the range."""
    shown = values if masked is None else values[~np.broadcast_to(masked, values.shape)]
    finite = shown[np.isfinite(shown)]
    if not finite.size:
        return (0.0, 1.0)
    low, high = float(finite.min()), float(finite.max())
    return (low, high) if high > low else (low, low + 1.0)


def nice_ticks(levels: tuple[float, float], most: int = 5) -> list[float]:
    """Round tick values inside ``levels`` (0, 0.25, 0.5 … or 1-2-5 steps), at most ``most`` of them."""
    low, high = levels
    span = high - low
    if not (math.isfinite(span) and span > 0):
        return [low]
    raw = span / max(most - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(0.0 if abs(value) < step * 1e-9 else float(round(value, 12)))
        value += step
    return ticks


def end_value(value: float) -> float:
    """An end of a colour range rounded to 3 significant digits for its label (3.7123 -> 3.71)."""
    return float(f"{value:.3g}") if math.isfinite(value) else value


def bar_ticks(levels: tuple[float, float], most: int = 5) -> list[float]:
    """Colour-bar ticks: both ends of ``levels`` (rounded by :func:`end_value`) and the round values
    between them (:func:`nice_ticks`), low to high; a painter drops inner ones too close to an end."""
    low, high = levels
    inner = [v for v in nice_ticks(levels, most) if end_value(low) < v < end_value(high)]
    ends = [end_value(low)] if end_value(low) == end_value(high) else [end_value(low), end_value(high)]
    return [ends[0], *inner, *ends[1:]]


def tick_text(value: float) -> str:
    """A tick label: 0.25, -5, 1e-06, and whole numbers in full (20000, not 2e+04)."""
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.4g}"


def figure_stem_of(title: str) -> str:
    """A file stem from a figure title: 'Kernel · w = 8.8' -> 'kernel-w-8-8'."""
    words = "".join(c if c.isalnum() else "-" for c in title.lower()).split("-")
    return "-".join(filter(None, words)) or "heatmap"
