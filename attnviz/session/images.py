"""The image on show, for a model that reads images: open a file, and the sample images shipped with attnviz."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attnviz.core.layout import Capability
from attnviz.core.results import EncodedSource
from attnviz.i18n import N_, tr
from attnviz.paths import SAMPLE_IMAGES
from attnviz.session.base import SessionBase
from attnviz.session.latest import SENTENCE
from attnviz.session_file import SavedSession

SAMPLE_SUFFIXES = (".png",)
# what the window calls each sample (its file: <class index>-<name>.png), by Fashion-MNIST's class names
SAMPLE_NAMES = {"t-shirt-top": N_("T-shirt/top"), "trouser": N_("Trouser"), "pullover": N_("Pullover"),
                "dress": N_("Dress"), "coat": N_("Coat"), "sandal": N_("Sandal"), "shirt": N_("Shirt"),
                "sneaker": N_("Sneaker"), "bag": N_("Bag"), "ankle-boot": N_("Ankle boot")}


def sample_name(path: Path) -> str:
    """What the window calls a sample image (translated): its class's name."""
    stem = path.stem.split("-", 1)[-1]
    return tr(SAMPLE_NAMES[stem]) if stem in SAMPLE_NAMES else stem.replace("-", " ")


def sample_images() -> list[Path]:
    """The sample images shipped in ``resources/samples`` (Fashion-MNIST test images), by name."""
    try:
        return sorted(path for path in SAMPLE_IMAGES.iterdir() if path.suffix.lower() in SAMPLE_SUFFIXES)
    except OSError:
        return []


class ImageRequests(SessionBase):
    """Open an image with the loaded image model: its maps, places and classes become the source on show (the
    Attention, Rollout and Positional views draw it as they draw a sentence; the image dock lays it over the
    picture). A newer image, sentence or model makes an older image's result stale."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.image_path: Path | None = None  # the image asked for last (opened again when another image model loads)
        self._image_shown: tuple[EncodedSource, Path] | None = None  # the image on show and the file it was read from

    def open_image(self, path: str | Path) -> None:
        """Read the image at ``path`` with the loaded model (in the background); a file that is not an image, or a
        model that reads none, is one message, and the image on show stays."""
        path = Path(path)
        loaded = self.loaded
        if loaded is None or not loaded.offers(Capability.IMAGE):
            name = loaded.name if loaded is not None else ""
            self.listener.error(tr("{model} reads sentences, not images: open an image model first (File ▸ Open, "
                                   "e.g. models/vit.safetensors)").format(model=name or tr("The model on show")))
            return
        ticket = self._latest.ask(SENTENCE)
        self.image_path = path

        def job() -> EncodedSource:
            from attnviz.core.models.image_reading import encode_image_file

            return encode_image_file(loaded, path, loaded.device)

        def done(source: EncodedSource) -> None:
            if self._latest.wins(ticket):
                self._image_shown = (source, path)
                # (the state's text stays the sentence typed last: a text model opened next reads it again)
                self._publish(source=source, steps=(), position=-1, computation=None, comparison=None,
                              explanation=None, compared_image=None)

        self._submit(tr("Reading {image}…").format(image=path.name), job, done, self._report)

    def image_file_of(self, source: EncodedSource | None) -> Path | None:
        """The file the image ``source`` was read from (the views' panels ask a second model, or one query's
        computation, of the same image), or None for a source that is not the image on show."""
        shown = self._image_shown
        return shown[1] if shown is not None and source is not None and shown[0] is source else None

    def image_to_restore(self, saved: SavedSession) -> None:
        """A saved session is opening: its image (if it has one) is the one an image model opens on."""
        if saved.image:
            self.image_path = Path(saved.image)

    def first_image(self, restoring: SavedSession | None) -> bool:
        """(A model has loaded, or a session opens with the model on show.) For an image model: the saved view and
        its first image (the saved one, the one on show before, or the first sample); returns whether it read
        images (False for any other model: nothing done)."""
        if self.loaded is None or not self.loaded.offers(Capability.IMAGE):
            return False
        if restoring is not None:
            self._publish(view=restoring.view)  # (the layer and head the saved overlay showed)
        self.open_image_again()
        return True

    def open_image_again(self) -> None:
        """(A model that reads images has loaded.) Its first look: the image on show before, or the first sample."""
        samples = sample_images()
        path = self.image_path if self.image_path is not None and self.image_path.exists() else (
            samples[0] if samples else None)
        if self.image_path is not None and path != self.image_path:
            self.listener.error(tr("{image} is no longer there: showing a sample image instead").format(
                image=self.image_path))
            self.image_path = None
        if path is not None:
            self.open_image(path)
