"""Loading a checkpoint, on the worker: the model, what the views need to know about it (:class:`ModelInfo`)
and, for kernel regression, its first fit. torch is imported here only when the job runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import Capability
from attnviz.core.results import KernelFit
from attnviz.i18n import tr
from attnviz.session.state import ModelInfo

if TYPE_CHECKING:
    from attnviz.core.models.loaded import LoadedModel
    from attnviz.core.models.translation import TranslationModel


def load_model(path: Path, device_name: str, fall_back: bool) -> tuple[LoadedModel, ModelInfo, KernelFit | None, str]:
    """(Runs on the worker.) The checkpoint at ``path`` on ``device_name`` — or, with ``fall_back`` and that
    device unavailable, on the best one there is (said in ``ModelInfo.notice``): the model, its info, the
    kernel-regression fit to show first (None for translation) and the device choice that was used."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.device import DeviceUnavailableError, pick_device, set_threads
    from attnviz.core.models.kernel_regression import KernelRegressionModel, explain

    set_threads()  # one thread: a step of these small models gains little from more, and shares well
    name, notice = device_name, ""
    try:
        chosen = pick_device(name)
    except DeviceUnavailableError as error:
        if not fall_back:
            raise
        name, chosen = "auto", pick_device("auto")
        notice = tr("{error}. Using {device} instead.").format(error=error, device=chosen)
    loaded = load_checkpoint(path, chosen)
    kernel = explain(cast(KernelRegressionModel, loaded.model)) if loaded.offers(Capability.KERNEL) else None
    return loaded, model_info(loaded, str(chosen), notice), kernel, name


def refuse_other_tokenizer(shown: LoadedModel, other: LoadedModel) -> None:
    """ValueError unless ``other`` reads and writes the very tokens ``shown`` does: Compare lays the two
    models' rows for the same queries and keys side by side, which only one tokenizer makes possible."""
    def vocabularies(loaded: LoadedModel) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Its tokens as its tokenizer has them (a model may pad its output layer with unused ids beyond)."""
        def own(vocab: Any) -> tuple[str, ...]:
            tokenizer = getattr(vocab, "tokenizer", None)
            return tuple(vocab.tokens[: len(tokenizer)] if tokenizer is not None else vocab.tokens)

        assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
        return own(loaded.src_vocab), own(loaded.tgt_vocab)

    if vocabularies(shown) != vocabularies(other):
        name = other.name
        raise ValueError(tr("{name} splits text into other tokens than the model on show: Compare puts two models' "
                            "attention over the same tokens side by side, so it needs two models with one tokenizer "
                            "(attnviz's own models share theirs; a Hugging Face model compares with one of its "
                            "family that uses its tokenizer)").format(name=name))


def model_info(loaded: LoadedModel, device: str, notice: str) -> ModelInfo:
    """What the views need to know about ``loaded``, as the model and its registry record say."""
    from attnviz.core.attention.positional import positional_encoding_table
    from attnviz.core.device import available_devices
    from attnviz.core.patching.tasks import tasks_for
    from attnviz.session_file import sha256_of

    c, kind = loaded.config, loaded.model_kind
    positions = kind.positions(c)  # its positional encoding's table, every position (none: 0)
    table = positional_encoding_table(positions, c.num_hiddens) if positions else None
    described = None
    if callable(describe := getattr(type(loaded.model), "describe_positions", None)):  # (a model that says itself)
        described = describe(loaded.model)
        table = described.table
    elif kind.hugging_face:
        from attnviz.core.hf.positional import describe_positions

        described = describe_positions(cast(Any, loaded.model).hf, c.architecture)
        table = described.table
    layers = heads = 0  # of the cross-attention (the Scoring panel's pickers), as the model says
    if kind.sequence_layout.offers(Capability.DECODER):
        cross = cast("TranslationModel", loaded.model).attention_modules(AttentionKind.CROSS)
        layers, heads = len(cross), int(getattr(cross[0], "num_heads", 1)) if cross else 0
        heads = int(c.num_heads) if kind.hugging_face else heads  # (Llama's modules do not say)
    return ModelInfo(kind.name, kind.family, Path(loaded.path or ""), device,
                     sum(p.numel() for p in loaded.model.parameters()), dict(loaded.training), kind.attention,
                     kind.scoring_formula, layers, heads, table, tuple(available_devices()), notice,
                     sha256_of(loaded.path) if loaded.path else "", described, kind.hugging_face,
                     *_history(loaded.training), heads_switch=_gated(loaded), explains=kind.explains,
                     documents=_reads_documents(loaded), labels=tuple(loaded.labels),
                     patching_tasks=tasks_for(loaded) if _patchable(loaded) else (),
                     patchable=_patchable(loaded))


def _reads_documents(loaded: LoadedModel) -> bool:
    """Whether the heads of ``loaded`` can be mapped over a file of documents (:mod:`attnviz.core.hf.documents`)."""
    if not loaded.model_kind.hugging_face:
        return False
    from attnviz.core.hf.documents import reads_documents

    return reads_documents(loaded)


def _gated(loaded: LoadedModel) -> bool:
    """Whether the heads of ``loaded`` can be switched off (and mapped over a corpus): gates go on and come off."""
    if not loaded.offers(Capability.DECODER):
        return False
    from attnviz.core.heads import GatesUnavailable, HeadGates

    try:
        HeadGates(loaded.model).remove()
    except GatesUnavailable:
        return False
    return True


def _history(training: dict[str, Any]) -> tuple[Any, str]:
    """(the training history a checkpoint keeps, read here on the worker: 1,000 snapshots take seconds; or None,
    and why it cannot be read ("" when there is none))."""
    from attnviz.core.learning.history import HistoryError, TrainingHistory

    if "history" not in training:
        return None, ""
    try:
        return TrainingHistory.from_json(training["history"]), ""
    except HistoryError as error:
        return None, str(error)


def _patchable(loaded: LoadedModel) -> bool:
    """Whether the heads of ``loaded`` can be patched over minimal pairs (core/patching): a model that reads
    sentences, whose every head goes through the intervention hook and whose blocks it names."""
    if not (loaded.offers(Capability.DECODER) or loaded.offers(Capability.MASKS)):
        return False
    if getattr(loaded.model, "residual_blocks", None) is None:
        return False
    from attnviz.core.heads import GatesUnavailable
    from attnviz.core.heads.gates import head_layout

    try:
        head_layout(loaded.model)
    except (GatesUnavailable, ValueError):  # (a model whose kinds' heads its record cannot name: not patched)
        return False
    return True
