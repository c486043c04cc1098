"""The image on show, for a model that reads images: open a file, and the sample images shipped with attnviz."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnviz.core.layout import Capability
from attnviz.core.results import EncodedSource, ImageComparison
from attnviz.i18n import N_, tr
from attnviz.paths import SAMPLE_IMAGES
from attnviz.session.analysis import EXPLAIN, AnalysisRequests, _twin
from attnviz.session.latest import QUERY, SENTENCE, Ticket
from attnviz.session.panels import PanelRequests
from attnviz.session_file import SavedSession

if TYPE_CHECKING:  # torch-backed: imported by the jobs, on their threads
    from attnviz.core.attention.computation import QueryComputation
    from attnviz.core.explain import Explanation
    from attnviz.core.heads.image_atlas import ImageAtlas
    from attnviz.core.models.loaded import LoadedModel

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


class ImageRequests(PanelRequests, AnalysisRequests):
    """Open an image with the loaded image model: its maps, places and classes become the source on show (the
    Attention, Rollout and Positional views draw it as they draw a sentence; the image dock lays it over the
    picture). A newer image, sentence or model makes an older image's result stale. The Heads, Explain, Computation
    and Compare docks' requests for an image are answered here (the hooks of :class:`PanelRequests` and
    :class:`AnalysisRequests`)."""

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

        def job() -> EncodedSource:
            from attnviz.core.models.image_reading import encode_image_file

            return encode_image_file(loaded, path, loaded.device)

        def done(source: EncodedSource) -> None:
            if self._latest.wins(ticket):
                self._image_shown = (source, path)
                self.image_path = path  # (only once read: a file that is not an image is not opened again)
                # (the state's text stays the sentence typed last: a text model opened next reads it again)
                self._publish(source=source, steps=(), position=-1, computation=None, comparison=None,
                              explanation=None, compared_image=None)

        def failed(error: BaseException) -> None:
            if self.image_path == path:  # (a saved or remembered image that no longer reads: not asked for again)
                self.image_path = self._image_shown[1] if self._image_shown is not None else None
            self._report(error)

        self._submit(tr("Reading {image}…").format(image=path.name), job, done, failed)

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

    # -- the docks' requests for an image (the generic requests' family hooks) ---------------------------------
    def _family_atlas(self, loaded: LoadedModel, corpus_path: str | Path | None) -> bool:
        if not loaded.offers(Capability.IMAGE):
            return super()._family_atlas(loaded, corpus_path)
        self._compute_image_atlas(loaded, corpus_path)
        return True

    def _family_explain(self, loaded: LoadedModel, source: EncodedSource, layer: int | None, head: int | None,
                        ig_steps: int, methods: Sequence[str] | None, token: str | None) -> bool | None:
        if source.picture is None or not loaded.offers(Capability.IMAGE):
            return super()._family_explain(loaded, source, layer, head, ig_steps, methods, token)
        return self._explain_image(loaded, source, layer, head, ig_steps, methods, token)

    def _family_query(self, loaded: LoadedModel, source: EncodedSource, layer: int, head: int,
                      query_index: int) -> bool | None:
        if source.picture is None:
            return super()._family_query(loaded, source, layer, head, query_index)
        return self._inspect_image_query(loaded, source, layer, head, query_index)

    def _family_compare_with(self, shown: LoadedModel, path: Path, ticket: Ticket) -> bool:
        if not shown.offers(Capability.IMAGE):
            return super()._family_compare_with(shown, path, ticket)
        self._compare_images_with(path, ticket)
        return True

    def _family_compare(self, other: LoadedModel, source: EncodedSource) -> bool:
        if other.offers(Capability.IMAGE) != (source.picture is not None):  # (a model of the other sort loaded since)
            self._other = None
            self._publish(comparison=None, compared_image=None, compared_with="")
            return True
        if source.picture is not None:
            self._compare_image(other, source)
            return True
        return super()._family_compare(other, source)

    def _compute_image_atlas(self, loaded: LoadedModel, folder: str | Path | None) -> None:
        """The atlas of an image model over the images in ``folder`` (None: the shipped samples), on a copy of the
        model; published as ``state.image_atlas``."""
        from attnviz.paths import SAMPLE_IMAGES

        where = Path(folder) if folder is not None else SAMPLE_IMAGES

        def work(progress: Callable[[int, int], bool]) -> ImageAtlas:
            from attnviz.core.heads.image_atlas import even_spread_distance, image_atlas, image_paths
            from attnviz.core.models.image_reading import reader_of

            paths = image_paths(where)
            twin = _twin(loaded, ())
            reader = reader_of(twin)
            sums = image_atlas(twin, paths, twin.device, progress)
            return sums.means(even_spread_distance(reader.grid, reader.patch), reader.specials)

        def done(atlas: ImageAtlas) -> None:
            if self.loaded is loaded:
                self._publish(image_atlas=atlas)

        self._run_atlas_job(tr("Mapping the heads…"), work, done)

    def _explain_image(self, loaded: LoadedModel, source: EncodedSource, layer: int | None, head: int | None,
                       ig_steps: int, methods: Sequence[str] | None, token: str | None) -> bool:
        """The image on show: its predicted class (or the class ``token``) explained over its patches, from the file
        it was read from (the model's own preprocessing reads it again on the worker)."""
        path = self.image_file_of(source)
        if path is None:
            return False
        ticket = self._latest.current(SENTENCE)

        def job() -> Explanation:
            from attnviz.core.explain import IMAGE_METHODS, explain_image
            from attnviz.core.models.image_reading import open_for, reader_of

            with open_for(reader_of(loaded), path) as image:
                return explain_image(loaded, image, loaded.device, methods or IMAGE_METHODS, layer, head, ig_steps,
                                     target=token)

        def done(explanation: Explanation) -> None:
            if self._latest.wins(ticket) and self._state.source is source:  # not for an image no longer on show
                self._publish(explanation=explanation)

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):
                self._report(error)

        self._submit(tr("Explaining the image's class…"), job, done, failed, one_of=EXPLAIN)
        return True

    def _inspect_image_query(self, loaded: LoadedModel, source: EncodedSource, layer: int, head: int,
                             query_index: int) -> bool:
        """One query of the image on show, read again from its file by the model (on the worker)."""
        path = self.image_file_of(source)
        weights = source.encoder_weights
        if path is None or weights is None or not (0 <= layer < weights.shape[0] and 0 <= head < weights.shape[1]
                                                   and 0 <= query_index < weights.shape[2]):
            return False
        ticket = self._latest.current(SENTENCE)

        def job() -> QueryComputation:
            from attnviz.core.decoding.query_computation import compute_image_query
            from attnviz.core.models.image_reading import open_for, reader_of

            with open_for(reader_of(loaded), path) as image:
                return compute_image_query(loaded, image, layer, head, query_index, loaded.device)

        def done(computation: QueryComputation) -> None:
            if self._latest.wins(ticket) and self._state.shown_source is source:  # not for another image
                self._publish(computation=computation)

        def failed(error: BaseException) -> None:
            if self._latest.wins(ticket):
                self._report(error)

        self._submit(tr("Computing the query…"), job, done, failed, one_of=QUERY)
        return True

    def _compare_images_with(self, path: Path, ticket: Ticket) -> None:
        """Load a second image model (a checkpoint or a Hugging Face folder) to read the image on show too."""
        device = self.loaded.device if self.loaded is not None else "cpu"

        def job() -> LoadedModel:
            from attnviz.core.checkpoints.checkpoint import load_checkpoint

            other = load_checkpoint(path, device)
            if not other.offers(Capability.IMAGE):
                raise ValueError(tr("{name} is a {kind} model, which reads sentences: Compare puts a second image "
                                    "model beside this one").format(name=path.name, kind=other.kind))
            return other

        def done(other: LoadedModel) -> None:
            if not self._latest.is_latest(ticket):
                return
            self._other = other
            self._publish(compared_with=str(path), compared_image=None)
            self.compare()

        self._submit(tr("Loading {name}…").format(name=path.name), job, done, self._report)

    def _compare_image(self, other: LoadedModel, source: EncodedSource) -> None:
        """The image on show read by the compared model (its own processor, patch grid, maps and classes)."""
        path = self.image_file_of(source)
        if path is None:
            return
        ticket = self._latest.current(SENTENCE)

        def job() -> ImageComparison:
            from attnviz.core.models.image_reading import encode_image_file

            return ImageComparison(other.name, other.kind, encode_image_file(other, path, other.device))

        def done(comparison: ImageComparison) -> None:
            if self._latest.wins(ticket) and self._other is other and self._state.shown_source is source:
                self._publish(compared_image=comparison)

        def failed(error: BaseException) -> None:
            if self._other is other:
                self._other = None
                self._publish(compared_image=None, compared_with="")
            self._report(error)

        self._submit(tr("Comparing…"), job, done, failed)
