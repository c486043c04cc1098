"""The model-kind registry: one frozen record per kind of checkpoint attnviz can load, train and show.

Checkpoint loading, training, the CLI's choices, the session's model info and the panels all read
this table; adding a translation kind is its model module, one entry here and its tests.
Torch-free: the config and model classes are imported on first use, so the GUI can read the table
before torch has loaded.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from attnviz.core import limits
from attnviz.core.attention.kind import AttentionKind
from attnviz.i18n import N_, tr

if TYPE_CHECKING:
    from attnviz.core.layout import SequenceLayout

Family = Literal["translation", "encoder-only", "regression", "vision"]


SIZE_PRESETS = ("tiny", "small")  # the sizes a model learning a generated task comes in (the Train dock's Size box)


@dataclass(frozen=True)
class TaskSizes:
    """How a kind is sized when it learns a generated task (``attnviz train KIND --task``, the Train dock): the
    three numbers the dock lets a user edit, (width, layers, heads); every other setting follows from them.

    presets: (width, layers, heads) of each of :data:`SIZE_PRESETS`; layer_settings: the config fields that take
    the layer count (the Transformer's encoder and decoder have as many layers each); heads: the model has heads
    (``num_heads``, a feed-forward width of 2 × width), else one attention and an embedding of max(32, width / 2)
    (the RNNs); place: where it comes in the lists a user picks from (the Train dock's Model box, the CLI's
    messages): the book's order, the RNNs of §10.4 before the Transformers of §10.7; hidden_setting: the config
    field of the feed-forward width; tasks: ``module:name`` of the tasks it learns (a dict, name → task: each has
    ``label``, ``alignment``, ``choice`` (the Train dock's entry), ``probe``, ``score_name`` and
    ``accepts_probe(text)``); trainer: ``module:function`` building a run, called as ``(kind, task, arch,
    settings, probe, device)`` (an object with ``model``, ``steps_per_epoch`` and ``run(control, on_snapshot)``,
    which returns the trained model with ``save(path)``, ``history`` and ``info``).
    """

    presets: Mapping[str, tuple[int, int, int]]
    layer_settings: tuple[str, ...]
    heads: bool = True
    place: int = 0
    hidden_setting: str = "ffn_hiddens"
    tasks: str = "attnviz.core.learning.tasks:TASKS"
    trainer: str = "attnviz.training.live:task_training"

    def arch(self, width: int, layers: int, heads: int) -> dict[str, object]:
        """The config settings of a model of that width, layers and heads; dropout off (the tasks are
        noise-free)."""
        arch: dict[str, object] = {"num_hiddens": width, "dropout": 0.0}
        arch |= {setting: layers for setting in self.layer_settings}
        if not self.heads:  # (one attention, no heads)
            return arch | {"embed_size": max(32, width // 2)}
        return arch | {self.hidden_setting: 2 * width, "num_heads": heads}

    def size_of(self, arch: object) -> tuple[int, int, int] | None:
        """The (width, layers, heads) that :meth:`arch` turned into ``arch`` (a checkpoint's stored settings,
        untrusted), or None where they are not all there as whole numbers."""
        if not isinstance(arch, dict):
            return None
        size = (arch.get("num_hiddens"), arch.get(self.layer_settings[0]), arch.get("num_heads") if self.heads else 1)
        if not all(isinstance(value, int) and not isinstance(value, bool) and value > 0 for value in size):
            return None
        return size  # type: ignore[return-value]


@dataclass(frozen=True)
class ModelKind:
    """Everything attnviz knows about one kind of model.

    module, config_class, model_class: where the config dataclass and the nn.Module live (imported
        lazily). The config dataclass's defaults are the kind's default architecture.
    fixed: config values the kind implies (rnn-additive has scoring "additive").
    label, scoring_formula: what the window shows (marked with ``N_``: ``tr()`` them where shown).
    default_lr: peak learning rate for ``attnviz train``; scoring_formula: the Scoring panel's text;
    attention: the attention matrices its decoding exposes (empty for regression).
    layout: the name of its sequence layout (``attnviz.core.layout``): how its attention is laid out, which
        the views ask instead of the kind ("decoder-only": one causal sequence, English then French).
    """

    name: str
    family: Family
    label: str
    module: str
    config_class: str
    model_class: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    default_lr: float = 1e-3
    scoring_formula: str = ""
    attention: tuple[AttentionKind, ...] = ()
    layout: str = "encoder-decoder"
    # core/limits.py: what a decoding records, a function or a "module:function" imported when first asked (a
    # family's own bound)
    attention_cells: Callable[[Mapping[str, Any]], int] | str | None = None
    sinusoidal_positions: bool = False  # adds the sinusoidal positional encoding to its embeddings
    hugging_face: bool = False  # a transformers model opened from its folder (its own modules and tokenizer)
    trainable: bool = True  # ``attnviz train`` can train it (a Hugging Face model is opened, not trained here)
    prompt_predicts: bool = False  # no separator: the prompt's last token is the query of the first new token
    # a long input's maps can be computed on demand (core/decoding/long_prompt.py): the model's ``query_keys`` keeps one
    # forward pass's queries and keys (QueryKeyStores), ``prompt_positions`` and ``query_key_bytes`` bound it (the
    # window beyond the decoding cap, ``attnviz export --prompt-map``)
    maps_on_demand: bool = False
    stepping: str = "attnviz.core.decoding.stepping:DecodeSession"  # module:class that steps through one sentence
    # module:function (model, kind) -> each layer's chain of that kind for the Computation view
    # (attnviz.core.attention.layers.ExplainsChain): attnviz's attention modules explain their own; a library's get
    # adapters
    query_chains: str = "attnviz.core.decoding.query_computation:own_chains"
    # module:function reading one step's internals for the Explain dock's methods (attnviz.core.explain.internals):
    # a decoded step's (model, src, tgt_in, labels, target_labels), or, where the layout fills masks, a masked
    # position's (model, ids, segments, position, labels). None: the Explain dock does not cover the kind
    internals: str | None = None
    # module:function (loaded model, {kind: its attention modules}) -> the reader of each key's ‖f_h(x_j)‖ in a
    # teacher-forced pass (attnviz.core.heads.value_norms.ValueNorms: the atlas's sinks' norm view), or None where the
    # model's heads have no values through an output projection (an RNN's attention)
    value_norms: str = "attnviz.core.heads.value_norms:own_value_norms"
    # its sizes when it learns a generated task (None: it does not: ``attnviz train --task`` and the Train dock
    # train only the kinds that have them)
    task_sizes: TaskSizes | None = None
    # config fields the training data decides (the vocabularies' sizes; an image model's image and classes):
    # never set with ``attnviz train --arch``
    data_fields: tuple[str, ...] = ("src_vocab_size", "tgt_vocab_size")
    # module:function (loaded model) -> its ImageReader (attnviz.core.models.image_reading): how a model that reads
    # images prepares them and runs (None: it reads no images)
    image_reader: str | None = None
    # module:function with ``{command}`` for ``heads``, ``explain``, ``export``: where those commands run for the
    # kind's own input (a folder of images as --data, an --image …), e.g. ``attnviz.commands.{command}_images:run``;
    # None: the commands' own sentence paths. A folder given as --data goes to the first record that has one
    input_commands: str | None = None
    # module:function (args, parse_arch, training_errors) -> exit code: ``attnviz train KIND`` on data of the kind's
    # own sort (a folder of images …); None: sentence pairs (or, for a kind that reads no text, its synthetic data).
    # Its module also has ``add_arguments``, ``data_help`` and ``refuse_options`` (:func:`data_trainer_modules`)
    data_trainer: str | None = None

    @property
    def shared_rows(self) -> int:
        """1 where the answer's first query is the prompt's last position (``prompt_predicts``), else 0: how many
        query rows the prompt and the answer share."""
        return 1 if self.prompt_predicts else 0

    @property
    def sequence_layout(self) -> SequenceLayout:
        """Its :class:`~attnviz.core.layout.SequenceLayout` (the one object views ask about its attention)."""
        from attnviz.core.layout import layout_named  # (the layout module imports this one)

        return layout_named(self.layout)

    @property
    def decoder_only(self) -> bool:
        """One causal sequence, prompt then answer (the views ask ``sequence_layout`` instead)."""
        return self.layout == "decoder-only"

    @property
    def reads_text(self) -> bool:
        """It reads sentences (has vocabularies or a tokenizer), unlike kernel regression's points."""
        from attnviz.core.layout import Capability

        return self.sequence_layout.offers(Capability.SENTENCE)

    @property
    def names_classes(self) -> bool:
        """A classifier whose number of classes its data decides: its checkpoint stores their names."""
        return "num_classes" in self.data_fields

    @property
    def reads_images(self) -> bool:
        """It reads an image cut into patches and names classes (a checkpoint stores their names)."""
        from attnviz.core.layout import Capability

        return self.sequence_layout.offers(Capability.IMAGE)

    @property
    def config_cls(self) -> type:
        return getattr(importlib.import_module(self.module), self.config_class)

    @property
    def stepping_cls(self) -> type:
        """The class that steps through one sentence with a loaded model of this kind: constructed as
        ``cls(loaded, device, beam_size=…)``, then ``encode(text)``, ``step(force=None)``, ``rewind(count)``,
        ``prefetch()``, ``target_id(token)``, ``steps``, ``finished``
        (:class:`attnviz.core.decoding.stepping.DecodeSession`)."""
        module, name = self.stepping.split(":")
        return cast(type, getattr(importlib.import_module(module), name))

    def chains_of(self, model: Any, kind: AttentionKind) -> list[Any]:
        """Each layer's chain of ``kind`` in ``model`` (:class:`attnviz.core.attention.layers.ExplainsChain`), for the
        Computation view's one runner."""
        module, name = self.query_chains.split(":")
        return cast(list[Any], getattr(importlib.import_module(module), name)(model, kind))

    @property
    def explains(self) -> bool:
        """The Explain dock and ``attnviz explain`` cover it: its record names how its internals are read, or it
        reads images (:func:`attnviz.core.explain.explain_image` works through its image reader)."""
        return self.internals is not None or self.image_reader is not None

    def value_norms_of(self, loaded: Any, modules: Mapping[AttentionKind, Sequence[Any]]) -> Any:
        """The reader of each key's ‖f_h(x_j)‖ for ``loaded`` (``value_norms``), or None (no norm view)."""
        module, name = self.value_norms.split(":")
        return getattr(importlib.import_module(module), name)(loaded, modules)

    def internals_reader(self) -> Callable[..., Any]:
        """The function reading one step's internals (``internals``); ValueError where the kind has none."""
        if self.internals is None:
            raise ValueError(f"explanations do not cover a {self.name} model")
        module, name = self.internals.split(":")
        return cast(Callable[..., Any], getattr(importlib.import_module(module), name))

    @property
    def model_cls(self) -> type:
        return getattr(importlib.import_module(self.module), self.model_class)

    def make_config(self, **values: Any) -> Any:
        """The kind's config from ``values`` (the kind's fixed values win), defaults elsewhere."""
        return self.config_cls(**{**values, **self.fixed})

    def owns(self, config: Any) -> bool:
        """Whether ``config`` is a config of this kind (its class and fixed values match)."""
        return isinstance(config, self.config_cls) and all(getattr(config, k) == v for k, v in self.fixed.items())

    def positions(self, config: Any) -> int:
        """How many positions its positional encoding covers for ``config`` (0: it has none): a decoder-only
        model's one sequence holds the English, <bos> and the French."""
        if not self.sinusoidal_positions:
            return 0
        if self.decoder_only:
            return int(config.max_src_len) + int(config.max_tgt_len) + 1
        return max(int(config.max_src_len), int(config.max_tgt_len))

    def settable_fields(self) -> list[str]:
        """Config fields a user may set (``attnviz train --arch``): all but the data's (``data_fields``) and fixed
        ones."""
        return [f.name for f in dataclasses.fields(self.config_cls) if f.name not in {*self.data_fields, *self.fixed}]


_RNN = "attnviz.core.models.seq2seq"
_RNN_SIZES = TaskSizes({"tiny": (32, 1, 1), "small": (64, 1, 1)}, ("num_layers",), heads=False, place=0)
_INTERNALS = "attnviz.core.explain.internals:"
_HF_VALUE_NORMS = "attnviz.core.hf.values:hf_value_norms"


def _encoder_only_cells(values: Mapping[str, Any]) -> int:
    from attnviz.core.models.encoder_only import recorded_cells  # (torch: only when a checkpoint is read)

    return recorded_cells(values)

IMAGE_COMMANDS = "attnviz.commands.{command}_images:run"  # the vision kinds' heads, explain and export

KINDS: dict[str, ModelKind] = {kind.name: kind for kind in (
    ModelKind("transformer", "translation", N_("Transformer encoder–decoder"), "attnviz.core.models.transformer",
              "TransformerConfig", "Transformer", default_lr=1e-3,
              scoring_formula=N_("scaled dot-product scoring per head: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              attention_cells=limits.encoder_decoder_cells, sinusoidal_positions=True,
              internals=_INTERNALS + "transformer_internals",
              task_sizes=TaskSizes({"tiny": (32, 1, 2), "small": (64, 2, 4)},
                                   ("num_encoder_layers", "num_decoder_layers"), place=1)),
    ModelKind("decoder-only", "translation", N_("Decoder-only Transformer (GPT-style), translating as continuation"),
              "attnviz.core.models.decoder_only", "DecoderOnlyConfig", "DecoderOnly", default_lr=1e-3,
              scoring_formula=N_("scaled dot-product scoring per head, causal: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              layout="decoder-only", attention_cells=limits.one_sequence_cells, sinusoidal_positions=True,
              internals=_INTERNALS + "decoder_only_internals",
              task_sizes=TaskSizes({"tiny": (32, 2, 2), "small": (64, 3, 4)}, ("num_decoder_layers",), place=2)),
    ModelKind("rnn-additive", "translation", N_("GRU encoder–decoder, additive (Bahdanau) attention"), _RNN,
              "Seq2SeqConfig", "Seq2SeqAttention", {"scoring": "additive"}, default_lr=2e-3,
              scoring_formula=N_("additive (Bahdanau) scoring: a(q, k) = w_vᵀ tanh(W_q q + W_k k)"),
              attention=(AttentionKind.CROSS,), attention_cells=limits.rnn_cells,
              internals=_INTERNALS + "recurrent_internals", task_sizes=_RNN_SIZES),
    ModelKind("rnn-dot", "translation", N_("GRU encoder–decoder, scaled dot-product attention"), _RNN,
              "Seq2SeqConfig", "Seq2SeqAttention", {"scoring": "dot"}, default_lr=2e-3,
              scoring_formula=N_("scaled dot-product scoring: a(q, k) = qᵀk / √d"),
              attention=(AttentionKind.CROSS,), attention_cells=limits.rnn_cells,
              internals=_INTERNALS + "recurrent_internals", task_sizes=_RNN_SIZES),
    ModelKind("hf-seq2seq", "translation", N_("Hugging Face encoder–decoder (Marian, BART, mBART, T5)"),
              "attnviz.core.hf.load",
              "HFSeq2SeqConfig", "HFEncoderDecoder",
              scoring_formula=N_("scaled dot-product scoring per head: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              hugging_face=True, trainable=False, maps_on_demand=True,
              query_chains="attnviz.core.hf.chains:hf_chains", value_norms=_HF_VALUE_NORMS),
    ModelKind("hf-causal", "translation", N_("Hugging Face decoder-only model (GPT-2, Llama, Qwen, Gemma, Mistral …)"),
              "attnviz.core.hf.load", "HFCausalConfig", "HFCausal",
              scoring_formula=N_("scaled dot-product scoring per head, causal: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS),
              layout="decoder-only", hugging_face=True, trainable=False, prompt_predicts=True, maps_on_demand=True,
              query_chains="attnviz.core.hf.chains:hf_chains", value_norms=_HF_VALUE_NORMS),
    ModelKind("encoder-only", "encoder-only", N_("Encoder-only Transformer (a small BERT), filling masked words"),
              "attnviz.core.models.encoder_only", "EncoderOnlyConfig", "EncoderOnly", default_lr=1e-3,
              scoring_formula=N_("scaled dot-product scoring per head, both directions: a(q, k) = (W_q q)ᵀ(W_k k) / "
                                 "√d_head"),
              attention=(AttentionKind.ENCODER_SELF,), layout="encoder-only",
              attention_cells=_encoder_only_cells, stepping="attnviz.core.decoding.fill_mask:FillMaskSession",
              internals=_INTERNALS + "masked_internals"),
    ModelKind("hf-encoder", "encoder-only", N_("Hugging Face encoder-only model (BERT, DistilBERT, RoBERTa)"),
              "attnviz.core.hf.load", "HFEncoderConfig", "HFEncoder",
              scoring_formula=N_("scaled dot-product scoring per head, both directions: a(q, k) = (W_q q)ᵀ(W_k k) / "
                                 "√d_head"),
              attention=(AttentionKind.ENCODER_SELF,), layout="encoder-only", hugging_face=True, trainable=False,
              maps_on_demand=True, stepping="attnviz.core.hf.encoder:HFFillMaskSession",
              query_chains="attnviz.core.hf.chains:hf_chains"),
    ModelKind("vit", "vision", N_("Vision Transformer (ViT), classifying images by their patches"),
              "attnviz.core.models.vit", "ViTConfig", "VisionTransformer", default_lr=2e-3,
              scoring_formula=N_("scaled dot-product scoring per head, over [CLS] and the patches: a(q, k) = "
                                 "(W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF,), layout="image",
              attention_cells="attnviz.core.models.vit_limits:vit_cells",
              data_fields=("image_size", "channels", "num_classes"), image_reader="attnviz.core.models.vit:ViTReader",
              input_commands=IMAGE_COMMANDS, data_trainer="attnviz.commands.train_images:run",
              task_sizes=TaskSizes({"tiny": (32, 2, 2), "small": (64, 3, 4)}, ("num_layers",), place=3,
                                   hidden_setting="mlp_hiddens", tasks="attnviz.core.learning.image_tasks:IMAGE_TASKS",
                                   trainer="attnviz.training.vision_tasks:task_training")),
    ModelKind("hf-vision", "vision", N_("Hugging Face vision transformer (ViT, DeiT, DINOv2), reading images by their "
                                        "patches"),
              "attnviz.core.hf.vision", "HFVisionConfig", "HFVision",
              scoring_formula=N_("scaled dot-product scoring per head, over the special tokens and the patches: "
                                 "a(q, k) = (W_q q)ᵀ(W_k k) / √d_head"),
              attention=(AttentionKind.ENCODER_SELF,), layout="image", hugging_face=True, trainable=False,
              data_fields=(), image_reader="attnviz.core.hf.vision:HFVisionReader", input_commands=IMAGE_COMMANDS,
              query_chains="attnviz.core.hf.chains:hf_chains"),
    ModelKind("kernel-regression", "regression", N_("Nadaraya–Watson kernel regression (attention pooling)"),
              "attnviz.core.models.kernel_regression", "KernelRegressionConfig", "KernelRegressionModel",
              layout="regression"),
)}


def kind_named(name: str) -> ModelKind:
    """The registry record of ``name``; KeyError names the known kinds."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(tr("unknown model kind {name!r}; known: {known}").format(name=name, known=", ".join(KINDS))
                       ) from None


def kind_of(config: Any) -> ModelKind:
    """The kind a config belongs to."""
    for kind in KINDS.values():
        if kind.owns(config):
            return kind
    raise TypeError(f"no model kind for {type(config).__name__}")


def task_kinds() -> tuple[str, ...]:
    """The kinds that learn generated tasks (those with :attr:`ModelKind.task_sizes`), in their places' order."""
    sized = [(kind.task_sizes.place, name) for name, kind in KINDS.items() if kind.task_sizes is not None]
    return tuple(name for _place, name in sorted(sized, key=lambda pair: pair[0]))


def _named(path: str) -> Any:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def tasks_of(kind: str) -> Mapping[str, Any]:
    """The generated tasks ``kind`` learns (its record's :attr:`TaskSizes.tasks`), name → task; none where it learns
    none."""
    sizes = kind_named(kind).task_sizes
    return cast(Mapping[str, Any], _named(sizes.tasks)) if sizes is not None else {}


def all_tasks() -> dict[str, Any]:
    """Every generated task some kind learns, name → task (the text tasks first)."""
    found: dict[str, Any] = {}
    for kind in task_kinds():
        found |= tasks_of(kind)
    return found


def task_trainer(kind: str) -> Callable[..., Any]:
    """The function that builds ``kind``'s run on a task (:attr:`TaskSizes.trainer`)."""
    return cast(Callable[..., Any], _named(task_sizes(kind).trainer))


def task_sizes(kind: str) -> TaskSizes:
    """``kind``'s :class:`TaskSizes`; ValueError where it does not learn generated tasks."""
    sizes = kind_named(kind).task_sizes
    if sizes is None:
        raise ValueError(tr("{kind} cannot be trained on a task; choose one of {kinds}").format(
            kind=kind, kinds=", ".join(task_kinds())))
    return sizes


def model_size(kind: str, preset: str) -> tuple[int, int, int]:
    """(width, layers, heads) of ``preset`` (one of :data:`SIZE_PRESETS`) for ``kind`` (the RNNs have one head)."""
    return task_sizes(kind).presets[preset]


def arch_for(kind: str, width: int, layers: int, heads: int) -> dict[str, object]:
    """The config settings of a ``kind`` model of that width, layers and heads (:meth:`TaskSizes.arch`)."""
    return task_sizes(kind).arch(width, layers, heads)


def size_of(kind: str, arch: object) -> tuple[int, int, int] | None:
    """The (width, layers, heads) a ``kind`` model's stored settings hold (:meth:`TaskSizes.size_of`)."""
    return task_sizes(kind).size_of(arch)


def preset_arch(kind: str, preset: str) -> dict[str, object]:
    """The config settings of ``preset`` for ``kind``."""
    return arch_for(kind, *model_size(kind, preset))


def families() -> list[str]:
    """Every group of models whose closed docks the window remembers (their layouts' ``dock_group``), sorted."""
    return sorted({kind.sequence_layout.dock_group for kind in KINDS.values()})


def data_trainer(kind: str) -> Callable[..., Any] | None:
    """The function ``attnviz train KIND`` runs for a kind trained on data of its own sort (its record's
    ``data_trainer``), or None."""
    named = KINDS[kind].data_trainer
    return cast(Callable[..., Any], _named(named)) if named is not None else None


def data_trainer_modules() -> list[Any]:
    """The modules of every record's ``data_trainer`` (once each, in the registry's order): each adds its own options
    to ``attnviz train`` (``add_arguments(parser)``), says what its --data is (``data_help()``) and refuses its
    options for the other kinds (``refuse_options(args)``)."""
    named = dict.fromkeys(k.data_trainer.split(":")[0] for k in KINDS.values() if k.data_trainer is not None)
    return [importlib.import_module(module) for module in named]


def input_command(command: str, kind: ModelKind | None = None) -> Callable[..., Any] | None:
    """Where ``command`` (``heads``, ``explain``, ``export``) runs for ``kind``'s own input (its record's
    ``input_commands``), or, with no kind, for a folder given as --data (the first record that has one); None: the
    command's own sentence path."""
    named = kind.input_commands if kind is not None else next(
        (k.input_commands for k in KINDS.values() if k.input_commands is not None), None)
    return cast(Callable[..., Any], _named(named.format(command=command))) if named is not None else None
