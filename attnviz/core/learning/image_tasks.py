"""Image tasks whose right attention is known, generated on the fly (seeded, numpy only; nothing stored).

The ``shapes`` task: a 28 × 28 grey image holds one bright shape — a square, a cross, a ring or a triangle, each
an outline one pixel wide, 6 to 9 pixels across — among dim clutter: short strokes, dots and, one time in two, a
dim shape of another class. The label is the bright shape's class; the *right attention* is the set of 4 × 4
patches the bright shape covers (a patch counts when any of the shape's pixels falls in it): to name the shape a
vision transformer's ``[CLS]`` has to read those patches and not the clutter's.

The clutter is never brighter than :data:`CLUTTER_MAX` and the shape never dimmer than :data:`SHAPE_MIN`, and the
shape is drawn over the clutter (the brighter pixel wins), so the bright shape is the one answer.
Training, held-out and probe images come from three separate random streams of one seed (numpy's
``default_rng([seed, stream])``): the held-out and probe images are never trained on (a 28 × 28 image of
continuous greys is never drawn twice). Shapes: S image side, G patches per side, P = G² patches.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

from attnviz.i18n import N_, tr

SIDE = 28  # pixels per side
PATCH = 4  # pixels per patch side: a 7 × 7 grid of 49 patches
SHAPES = ("square", "cross", "ring", "triangle")  # the classes, in label order
SHAPE_LABELS = {"square": N_("square"), "cross": N_("cross"), "ring": N_("ring"), "triangle": N_("triangle")}
SIZES = range(6, 10)  # a shape's side, pixels
SHAPE_MIN, SHAPE_MAX = 0.8, 1.0  # the bright shape's grey
CLUTTER_MIN, CLUTTER_MAX = 0.15, 0.45  # the clutter's grey
TRAIN, HELD_OUT, PROBE = 0, 1, 2  # the random streams of a seed


@dataclass(frozen=True)
class ImageExample:
    """image (S, S) float32 in [0, 1]; label: the bright shape's class (an index into the task's classes);
    patches (G, G) bool: the patches the bright shape covers (the right attention); box: the shape's
    (top, left, size) in pixels."""

    image: np.ndarray
    label: int
    patches: np.ndarray
    box: tuple[int, int, int]


@cache
def _outline(shape: str, size: int) -> np.ndarray:
    """(size, size) bool: the outline of ``shape``, one pixel wide, filling the box."""
    rows, cols = np.mgrid[0:size, 0:size]
    last = size - 1
    if shape == "square":
        return (rows == 0) | (rows == last) | (cols == 0) | (cols == last)
    if shape == "cross":  # a plus: the middle row and column (the two middle ones of an even size)
        middle = {last // 2, size // 2}
        return np.isin(rows, list(middle)) | np.isin(cols, list(middle))
    if shape == "ring":
        centre, radius = last / 2, last / 2
        distance = np.hypot(rows - centre, cols - centre)
        return np.abs(distance - radius) < 0.65
    if shape == "triangle":  # pointing up: its apex the top row's middle, its base the bottom row
        inside = np.abs(cols - last / 2) <= rows / 2 + 0.5
        padded = np.pad(inside, 1)
        interior = inside & padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
        return inside & ~interior  # (its pixels without a 4-neighbour outside)
    raise ValueError(f"unknown shape {shape!r}")


def _line(image: np.ndarray, rng: np.random.Generator, grey: float) -> None:
    """A straight stroke of 3 to 9 pixels at a random angle, drawn (brighter pixels kept) into ``image``."""
    side = image.shape[0]
    length = rng.integers(3, 10)
    angle = rng.uniform(0, np.pi)
    r0, c0 = rng.uniform(0, side - 1, 2)
    steps = np.linspace(0, length - 1, int(length))
    rows = np.clip(np.rint(r0 + steps * np.sin(angle)), 0, side - 1).astype(int)
    cols = np.clip(np.rint(c0 + steps * np.cos(angle)), 0, side - 1).astype(int)
    image[rows, cols] = np.maximum(image[rows, cols], grey)


def _place(image: np.ndarray, outline: np.ndarray, top: int, left: int, grey: float) -> None:
    size = outline.shape[0]
    window = image[top: top + size, left: left + size]
    window[outline] = np.maximum(window[outline], grey)


@dataclass(frozen=True)
class ImageTask:
    """A generated image task: its name, what the window says of it (``label``, ``alignment``, ``choice``: in
    English, marked for the catalogue), its classes and image geometry, and the probe's default seed."""

    name: str
    label: str
    alignment: str
    choice: str  # the Train dock's entry: its short name, " — ", what the right attention is
    classes: tuple[str, ...] = SHAPES
    side: int = SIDE
    patch: int = PATCH
    probe: str = "0"  # the probe image's seed (``--probe``), as text: the probe field's hint
    score_name: str = N_("accuracy")  # what the held-out score is: the share of images whose class is named

    @property
    def grid(self) -> int:
        """G: patches per side."""
        return self.side // self.patch

    def class_label(self, index: int) -> str:
        """The ``index``-th class's name, in the interface's language."""
        return tr(SHAPE_LABELS.get(self.classes[index], self.classes[index]))

    def make(self, rng: np.random.Generator) -> ImageExample:
        """One example drawn from ``rng``."""
        side = self.side
        image = np.zeros((side, side), np.float32)
        for _ in range(rng.integers(3, 7)):
            _line(image, rng, float(rng.uniform(CLUTTER_MIN, CLUTTER_MAX)))
        for _ in range(rng.integers(4, 13)):
            r, c = rng.integers(0, side, 2)
            image[r, c] = max(image[r, c], float(rng.uniform(CLUTTER_MIN, CLUTTER_MAX)))
        label = int(rng.integers(len(self.classes)))
        if rng.random() < 0.5:  # a dim shape of another class: the clutter can look like an answer
            other = (label + 1 + int(rng.integers(len(self.classes) - 1))) % len(self.classes)
            size = int(rng.choice(SIZES))
            top, left = rng.integers(0, side - size + 1, 2)
            _place(image, _outline(self.classes[other], size), int(top), int(left),
                   float(rng.uniform(CLUTTER_MIN, CLUTTER_MAX)))
        size = int(rng.choice(SIZES))
        top, left = (int(v) for v in rng.integers(0, side - size + 1, 2))
        outline = _outline(self.classes[label], size)
        _place(image, outline, top, left, float(rng.uniform(SHAPE_MIN, SHAPE_MAX)))
        return ImageExample(image, label, self.patches_of(outline, top, left), (top, left, size))

    def patches_of(self, outline: np.ndarray, top: int, left: int) -> np.ndarray:
        """(G, G) bool: the patches holding at least one pixel of ``outline`` placed at (top, left)."""
        covered = np.zeros((self.side, self.side), bool)
        size = outline.shape[0]
        covered[top: top + size, left: left + size] = outline
        g, p = self.grid, self.patch
        return np.asarray(covered.reshape(g, p, g, p).any(axis=(1, 3)))  # (G, p, G, p) -> (G, G)

    def stream(self, seed: int, held_out: bool = False, count: int | None = None) -> Iterator[ImageExample]:
        """Examples without end (or ``count`` of them), reproducible from ``seed``: training images, or
        (``held_out``) the evaluation images, from separate random streams."""
        rng = np.random.default_rng([seed, HELD_OUT if held_out else TRAIN])
        made = 0
        while count is None or made < count:
            made += 1
            yield self.make(rng)

    def examples(self, count: int, seed: int, held_out: bool = False) -> list[ImageExample]:
        return list(self.stream(seed, held_out, count))

    def probe_example(self, seed: int) -> ImageExample:
        """The probe image of ``seed`` (its own stream: never a training or held-out image)."""
        return self.make(np.random.default_rng([seed, PROBE]))

    def probe_seed(self, text: str) -> int | None:
        """The probe seed ``text`` gives (a whole number from 0 to 2³¹ − 1), or None where it is not one."""
        text = text.strip()
        if not text.isascii() or not text.isdecimal() or len(text) > 10 or int(text) >= 2**31:
            return None
        return int(text)

    def accepts_probe(self, text: str) -> bool:
        """Whether ``text`` names a probe of this task (a seed)."""
        return self.probe_seed(text) is not None


IMAGE_TASKS: dict[str, ImageTask] = {task.name: task for task in (
    ImageTask("shapes", N_("name the bright shape among dim clutter"), N_("[CLS] on the shape's patches"),
              N_("shapes — [CLS] on the bright shape")),
)}
