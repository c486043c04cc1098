"""Every call attnviz makes into transformers' private or internal API, behind one fence.

attnviz decodes a Hugging Face model as the library's ``generate`` does, keeps its own keys and values and records
attention through the library's eager computation, which takes names transformers does not promise to keep from one
release to the next:

* the model's ``_prepare_generation_config``, ``_prepare_special_tokens`` and ``_get_logits_processor``, the
  ``_eos_token_tensor`` they leave on the generation config, and the per-row ``prompt_ignore_length`` of a
  processor (:func:`generation_config`, :func:`prepare_special_tokens`, :func:`logits_processors`,
  :func:`end_ids`, :func:`prompt_processors`, :func:`ignore_prompt`);
* ``DynamicCache(ddp_cache_data=…)`` and ``EncoderDecoderCache``, made from attnviz's keys and values, and their
  ``layers`` read back (:func:`decoder_cache`, :func:`encoder_decoder_cache`, :func:`keys_and_values`);
* ``masking_utils.eager_mask``, registered with attnviz's recording attention (:func:`register_attention`);
* T5's ``T5Attention._relative_position_bucket`` (:func:`t5_buckets`);
* Marian's ``MarianSinusoidalPositionalEmbedding.create_weight``, replaced by the same table made faster
  (:func:`quick_marian_table`);
* where a rotary embedding's base is (``config.rope_parameters`` since transformers 5, ``rope_theta`` before:
  :func:`rope_base`), and the keywords an attention module's ``forward`` is called with (``key_value_states``,
  ``position_embeddings``: :func:`attention_inputs`).

No other module of attnviz names one of them (tests/test_hf_compat.py checks). ``TESTED`` is the range of releases
that the tests comparing attnviz with the library's own ``generate`` and ``output_attentions`` (tests/test_hf_*.py)
passed with: they are the upgrade gate (docs/huggingface.md: "Checking a new transformers
release"). :func:`unsupported` says
in one sentence what does not work with the installed transformers — a release outside ``TESTED``, or one of the
names above missing —; opening a folder refuses with it (:func:`attnviz.core.hf.load.load_hf_folder`, whose
refusals the window and the CLI show), and each function here raises the same sentence, not an AttributeError,
where it is used. Importing this module imports nothing of transformers.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from attnviz.i18n import N_, tr

TESTED = ("5.23.0", "5.23.0")  # the first and the last transformers release tests/test_hf_*.py passed with

DECODING = N_("decoding as generate does")
RECORDING = N_("recording attention")
T5_BIAS = N_("T5's relative position bias")


class UnsupportedTransformers(ValueError):
    """The installed transformers lacks what attnviz needs: the message is :func:`unsupported`'s one sentence."""


@dataclass(frozen=True)
class Need:
    """A private or internal name attnviz uses: ``module`` (from transformers' root), the class that holds it
    ("" for the module itself), the name, whether it is a keyword of that class's constructor rather than an
    attribute, and what attnviz needs it for (shown to the user)."""

    module: str
    owner: str
    name: str
    purpose: str
    keyword: bool = False

    @property
    def shown(self) -> str:
        where = f"{self.owner}.{self.name}" if self.owner else f"{self.module}.{self.name}"
        return f"{self.owner}({self.name}=…)" if self.keyword else where


PREPARE_CONFIG = Need("generation.utils", "GenerationMixin", "_prepare_generation_config", DECODING)
PREPARE_SPECIAL = Need("generation.utils", "GenerationMixin", "_prepare_special_tokens", DECODING)
PROCESSORS = Need("generation.utils", "GenerationMixin", "_get_logits_processor", DECODING)
END_TENSOR = Need("generation.configuration_utils", "GenerationConfig", "_eos_token_tensor", DECODING)
CACHE_DATA = Need("cache_utils", "DynamicCache", "ddp_cache_data", DECODING, keyword=True)
ENCODER_DECODER_CACHE = Need("cache_utils", "", "EncoderDecoderCache", DECODING)
EAGER_MASK = Need("masking_utils", "", "eager_mask", RECORDING)
T5_BUCKETS = Need("models.t5.modeling_t5", "T5Attention", "_relative_position_bucket", T5_BIAS)
MARIAN_TABLE = Need("models.marian.modeling_marian", "MarianSinusoidalPositionalEmbedding", "create_weight", "")
# checked when a folder is opened (END_TENSOR is set on a config by PREPARE_SPECIAL: checked where it is read;
# MARIAN_TABLE's absence costs time only: the library's own table is used)
NEEDS = (PREPARE_CONFIG, PREPARE_SPECIAL, PROCESSORS, CACHE_DATA, ENCODER_DECODER_CACHE, EAGER_MASK, T5_BUCKETS)
# the names no other module of attnviz may use (tests/test_hf_compat.py)
PRIVATE_NAMES = (*(need.name for need in (*NEEDS, END_TENSOR, MARIAN_TABLE)), "prompt_ignore_length", "cache_utils",
                 "masking_utils", "modeling_marian", "modeling_t5", "rope_parameters", "rope_theta",
                 "key_value_states", "position_embeddings")


def _version_key(text: str) -> Any:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def _tested() -> str:
    return TESTED[0] if TESTED[0] == TESTED[-1] else f"{TESTED[0]}–{TESTED[-1]}"


def _found(need: Need) -> bool:
    """Whether the installed transformers has ``need`` (its module imported, nothing called)."""
    try:
        holder: Any = importlib.import_module(f"transformers.{need.module}")
    except ImportError:
        return False
    if need.owner:
        holder = getattr(holder, need.owner, None)
        if holder is None:
            return False
    return need.name in _keywords(holder) if need.keyword else hasattr(holder, need.name)


@functools.cache
def _keywords(constructor: Any) -> frozenset[str]:
    """The keywords ``constructor`` takes (read once per class: a decoding step makes caches)."""
    try:
        return frozenset(inspect.signature(constructor).parameters)
    except (TypeError, ValueError):
        return frozenset()


def _missing(need: Need) -> str:
    import transformers

    return tr("transformers {version} has no {name}, which attnviz needs for {purpose}: opening Hugging Face models "
              "is unsupported with it (attnviz is tested with transformers {tested})").format(
        version=transformers.__version__, name=need.shown, purpose=tr(need.purpose), tested=_tested())


def unsupported() -> str:
    """One sentence saying what is unsupported with the installed transformers ("" when nothing is): a name attnviz
    needs that it lacks, else a release outside ``TESTED``. Imports transformers."""
    import transformers

    for need in NEEDS:
        if not _found(need):
            return _missing(need)
    version, first, last = (_version_key(v) for v in (transformers.__version__, *TESTED))
    if version is None or not first <= version <= last:
        return tr("transformers {version} is installed, but attnviz is tested with transformers {tested} only: "
                  "opening Hugging Face models is unsupported with it").format(
            version=transformers.__version__, tested=_tested())
    return ""


def _require(need: Need, holder: Any) -> None:
    """UnsupportedTransformers, not an AttributeError, where ``holder`` lacks ``need``'s name."""
    if not hasattr(holder, need.name):
        raise UnsupportedTransformers(_missing(need))


# generate's rules ------------------------------------------------------------------------------------------------

def generation_config(model: Any, beam_size: int) -> Any:
    """The generation config ``generate(num_beams=beam_size, do_sample=False)`` decodes by (a copy)."""
    _require(PREPARE_CONFIG, model)
    config, _ = model._prepare_generation_config(None, do_sample=False, num_beams=beam_size)
    return config


def prepare_special_tokens(model: Any, config: Any, device: Any) -> None:
    """Its special tokens as tensors on ``device``, as ``generate`` prepares them (an attention mask is given)."""
    _require(PREPARE_SPECIAL, model)
    model._prepare_special_tokens(config, True, device)


def logits_processors(model: Any, config: Any, width: int, src: Any, inputs: dict[str, Any]) -> Any:
    """The logits processors ``generate`` builds for ``config`` over inputs ``width`` tokens long (``inputs``: the
    model's keyword inputs it reads, a prompt's attention mask)."""
    _require(PROCESSORS, model)
    return model._get_logits_processor(generation_config=config, input_ids_seq_length=width, encoder_input_ids=src,
                                       prefix_allowed_tokens_fn=None, logits_processor=None, device=src.device,
                                       model_kwargs=inputs)


def end_ids(config: Any) -> tuple[int, ...]:
    """The end-of-text ids of a config :func:`prepare_special_tokens` prepared."""
    _require(END_TENSOR, config)
    ends = config._eos_token_tensor
    return tuple(int(i) for i in ends.tolist()) if ends is not None else ()


def prompt_processors(processors: Sequence[Any]) -> list[Any]:
    """The processors told, per row, how much of its input is prompt padding (a ``prompt_ignore_length`` tensor)."""
    import torch

    return [p for p in processors if isinstance(getattr(p, "prompt_ignore_length", None), torch.Tensor)]


def ignore_prompt(processors: Sequence[Any], lengths: Sequence[int], device: Any) -> None:
    """Tell each of :func:`prompt_processors` how long each row's prompt padding is (``lengths``, one per row)."""
    import torch

    for processor in processors:
        processor.prompt_ignore_length = torch.tensor(lengths, device=device)


# caches ----------------------------------------------------------------------------------------------------------

def decoder_cache(kv: Sequence[tuple[Any, Any]]) -> Any:
    """A fresh ``DynamicCache`` holding per layer the keys and values ``kv`` (empty: none yet)."""
    from transformers.cache_utils import DynamicCache

    if CACHE_DATA.name not in _keywords(DynamicCache):
        raise UnsupportedTransformers(_missing(CACHE_DATA))
    return DynamicCache(ddp_cache_data=tuple(kv) or None)


def encoder_decoder_cache(kv: Sequence[tuple[Any, Any]]) -> Any:
    """An ``EncoderDecoderCache``: the self-attention's keys and values ``kv`` and an empty cross-attention cache."""
    cache_utils = importlib.import_module("transformers.cache_utils")
    _require(ENCODER_DECODER_CACHE, cache_utils)
    return cache_utils.EncoderDecoderCache(decoder_cache(kv), decoder_cache(()))


def keys_and_values(cache: Any) -> tuple[tuple[Any, Any], ...]:
    """Per layer the keys and values a forward pass left in ``cache`` (an encoder–decoder's: its self-attention's)."""
    own = getattr(cache, "self_attention_cache", cache)
    return tuple((layer.keys, layer.values) for layer in own.layers)


# attention, positions ----------------------------------------------------------------------------------------------

def register_attention(name: str, function: Callable[..., Any]) -> None:
    """Make ``attn_implementation=name`` call ``function``, with the masks eager attention gets (idempotent)."""
    from transformers import AttentionInterface, AttentionMaskInterface

    masking_utils = importlib.import_module("transformers.masking_utils")
    _require(EAGER_MASK, masking_utils)
    AttentionInterface.register(name, function)
    AttentionMaskInterface.register(name, masking_utils.eager_mask)


def attention_inputs(args: tuple[Any, ...], kwargs: dict[str, Any], rotary: bool) -> tuple[Any, Any, Any]:
    """What an attention module's ``forward`` was called with (a forward pre-hook's ``args`` and ``kwargs``): its
    hidden states (B, Q, D), cross-attention's key/value states (B, S, D) or None, and, ``rotary``, its positions'
    (cos, sin) (B, Q, d) (else None)."""
    hidden = args[0] if args else kwargs["hidden_states"]
    return hidden, kwargs.get("key_value_states"), kwargs["position_embeddings"] if rotary else None


def t5_buckets(attention: Any, distances: Any) -> Any:
    """The bucket of each relative distance key − query ``distances`` in T5 ``attention``'s bias table."""
    _require(T5_BUCKETS, attention)
    return attention._relative_position_bucket(distances, bidirectional=True,
                                               num_buckets=attention.relative_attention_num_buckets,
                                               max_distance=attention.relative_attention_max_distance)


ROPE_BASE, ROPE_PARAMETERS, ROPE_SCALING = "rope_theta", "rope_parameters", "rope_scaling"  # (config.json's keys)


def rope_of_layer_type(config: Any, layer_type: str | None) -> tuple[float, str]:
    """The RoPE base and type a layer of ``layer_type`` uses (``config``: config.json's mapping or a transformers
    config): ``rope_parameters`` (keyed by layer type where the config keys it so: Gemma 3, ModernBERT), else the
    legacy ``rope_theta`` / ``rope_scaling``; 10,000 and "default" where it names none."""
    from collections.abc import Mapping

    def get(key: str) -> Any:
        return config.get(key) if isinstance(config, Mapping) else getattr(config, key, None)

    parameters = get(ROPE_PARAMETERS) or {}
    if isinstance(parameters, Mapping) and isinstance(parameters.get(layer_type), Mapping):
        parameters = parameters[layer_type]
    if not isinstance(parameters, Mapping):
        parameters = {}
    legacy = get(ROPE_SCALING)
    base = parameters.get(ROPE_BASE, get(ROPE_BASE))
    kind = parameters.get("rope_type") or (legacy.get("rope_type") if isinstance(legacy, Mapping) else None)
    number = isinstance(base, int | float) and not isinstance(base, bool)
    return (float(base) if number else 10000.0, str(kind or "default"))


def rope_base(config: Any) -> float:
    """A rotary embedding's base θ (10,000 where the config names none)."""
    parameters = getattr(config, "rope_parameters", None) or {}
    return float(parameters.get("rope_theta") or getattr(config, "rope_theta", None) or 10000.0)


def quick_marian_table(table: Callable[[int, int], Any]) -> None:
    """Marian builds its two position tables cell by cell in Python at every load: make ``create_weight`` call
    ``table(positions, dim)`` instead, the same numbers (tests/test_hf_open.py; the library's own is kept as
    ``_attnviz_library_create_weight``). Where this transformers has no ``create_weight``, its own way stays."""
    if not _found(MARIAN_TABLE):
        return
    modeling_marian = importlib.import_module("transformers.models.marian.modeling_marian")
    embedding: Any = modeling_marian.MarianSinusoidalPositionalEmbedding
    if getattr(embedding, "_attnviz_quick", False):
        return

    def create_weight(self: Any) -> Any:
        import torch

        if self.weight.is_meta:  # (the model laid out to measure it: no numbers)
            return torch.empty(self.weight.shape, dtype=self.weight.dtype, device="meta")
        return table(*self.weight.shape).to(self.weight.dtype)

    embedding._attnviz_library_create_weight = embedding.create_weight
    embedding.create_weight = create_weight
    embedding._attnviz_quick = True
