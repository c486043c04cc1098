"""Open a Hugging Face model folder as a :class:`~attnviz.core.checkpoint.LoadedModel`.

The folder is checked first (:mod:`attnviz.core.hf.folder`: nothing is read until its files, config and
sizes pass). Then transformers builds the model from disk only — offline, ``local_files_only``, never
``trust_remote_code`` — in float32 with attnviz's recording attention, and the tokenizer becomes a
:class:`~attnviz.core.hf.vocab.SubwordVocab`. The model is wrapped in the decoder interface of its layout
(:class:`~attnviz.core.hf.seq2seq.HFEncoderDecoder`, :class:`~attnviz.core.hf.causal.HFCausal`).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import torch

from attnviz.core.hf.folder import ARCHITECTURES, HFFolder, inspect_folder
from attnviz.core.hf.vocab import SubwordVocab
from attnviz.i18n import tr

DECODED = ("marian", "bart", "mbart", "t5", "gpt2", "llama", "qwen2")  # the architectures whose adapters are tested
MAX_OUTPUT_TOKENS = 64  # subword pieces: about twice the words attnviz's own models take
MAX_SOURCE_TOKENS = 512  # a source (a decoder-only model's prompt and answer together) beyond is cut


@dataclass(frozen=True)
class HFModelConfig:
    """attnviz's view of a Hugging Face model: its architecture and name, the sizes the views read, and the
    longest source and output it decodes here (``max_src_len`` tokens, ``max_tgt_len`` new tokens)."""

    architecture: str
    name: str
    num_hiddens: int
    num_heads: int
    num_encoder_layers: int
    num_decoder_layers: int
    max_src_len: int
    max_tgt_len: int


class HFSeq2SeqConfig(HFModelConfig):
    """An encoder–decoder's view (the registry tells the layouts apart by the config's class)."""


class HFCausalConfig(HFModelConfig):
    """A decoder-only model's view."""


def _offline() -> None:
    """No download, ever: the hub client and transformers are told so before they are imported."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def load_hf_folder(path: str | Path, device: torch.device | str = "cpu") -> Any:
    """The model in the folder ``path`` as a LoadedModel (HFFolderError, or the library's error in one
    sentence as ValueError, when it cannot be)."""
    from attnviz.core.checkpoint import LoadedModel

    folder = inspect_folder(path)
    if folder.model_type not in DECODED:
        raise ValueError(tr("{path}: attnviz does not step {architecture} models yet; it steps {names}").format(
            path=folder.path, architecture=folder.architecture.name,
            names=", ".join(ARCHITECTURES[t].name for t in DECODED)))
    _offline()
    try:
        import transformers
    except ImportError:
        raise ValueError(tr("{path}: opening Hugging Face models needs the transformers package, which the "
                            "standalone build leaves out: install attnviz from source (README: bash scripts/run.sh)"
                            ).format(path=folder.path)) from None
    transformers.utils.logging.disable_progress_bar()  # (its "Loading weights" bar is noise on a CLI's stderr)
    _quick_marian_table(transformers)

    from attnviz.core.hf.causal import HFCausal
    from attnviz.core.hf.seq2seq import HFEncoderDecoder

    encoder_decoder = folder.architecture.layout == "encoder-decoder"
    model_class = transformers.AutoModelForSeq2SeqLM if encoder_decoder else transformers.AutoModelForCausalLM
    try:
        model = model_class.from_pretrained(folder.path, local_files_only=True, trust_remote_code=False,
                                            dtype=torch.float32, attn_implementation="eager")
        with warnings.catch_warnings():  # (MarianTokenizer advises an optional package on every load)
            warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder.path, local_files_only=True,
                                                                   trust_remote_code=False)
    except (OSError, ValueError, KeyError, ImportError, RuntimeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(tr("{path}: transformers cannot open it ({error})").format(path=folder.path, error=first)
                         ) from None
    config = _view_config(folder, encoder_decoder)
    vocab = _vocab(tokenizer, model, encoder_decoder)
    adapter = (HFEncoderDecoder(model, config, vocab.bos_id, vocab.pad_id) if encoder_decoder
               else HFCausal(model, config, vocab.pad_id))
    kind = "hf-seq2seq" if encoder_decoder else "hf-causal"
    training = {"architecture": folder.architecture.name, "source": "Hugging Face", "name": folder.name}
    words = cast(Any, vocab)  # (SubwordVocab has Vocab's interface: ids, tokens, special ids, split, text_of)
    return LoadedModel(kind, config, adapter.to(device), words, words, training, Path(path))


def marian_table(positions: int, dim: int) -> torch.Tensor:
    """Marian's sinusoidal table (positions, dim) — sines of pos / 10000^(2⌊j/2⌋/dim) for even j in the first
    half, cosines for odd j in the second — computed as transformers' ``create_weight`` does, element for
    element, but with numpy's array operations instead of a Python loop over every cell."""
    import numpy as np

    angles = np.arange(positions)[:, None] / np.power(10000, 2 * (np.arange(dim) // 2) / dim)[None, :]
    out = torch.empty(positions, dim)
    half = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :half] = torch.FloatTensor(np.sin(angles[:, 0::2]))
    out[:, half:] = torch.FloatTensor(np.cos(angles[:, 1::2]))
    return out


def _quick_marian_table(transformers: Any) -> None:
    """Marian builds its two position tables cell by cell in Python at every load (0.5 s of the 0.65 s a model
    of opus-mt's size takes to open): use :func:`marian_table`, the same numbers (tests/test_hf_open.py)."""
    from transformers.models.marian import modeling_marian

    embedding: Any = modeling_marian.MarianSinusoidalPositionalEmbedding
    if getattr(embedding, "_attnviz_quick", False):
        return

    def create_weight(self: Any) -> torch.Tensor:
        return marian_table(*self.weight.shape).to(self.weight.dtype)

    embedding._attnviz_library_create_weight = embedding.create_weight
    embedding.create_weight = create_weight
    embedding._attnviz_quick = True


def _view_config(folder: HFFolder, encoder_decoder: bool) -> HFModelConfig:
    """The sizes as the folder's checked config gives them (its Architecture record names the keys)."""
    arch, values = folder.architecture, folder.config
    layers = [int(values.get(key) or values[arch.layers[0]]) for key in arch.layers]
    positions = int(values.get(arch.positions) or 512) if arch.positions else 512
    if encoder_decoder:  # (the source and the output each have the model's positions)
        source, output = min(positions, MAX_SOURCE_TOKENS), min(MAX_OUTPUT_TOKENS, positions - 1)
    else:  # one sequence: the prompt and the answer share them (a small model's: half each)
        output = min(MAX_OUTPUT_TOKENS, positions // 2)
        source = min(positions - output, MAX_SOURCE_TOKENS - MAX_OUTPUT_TOKENS)
    cls = HFSeq2SeqConfig if encoder_decoder else HFCausalConfig
    return cls(arch.name, folder.name, int(values[arch.width]), int(values[arch.heads[0]]),
               layers[0] if encoder_decoder else 0, layers[-1], max(source, 1), max(output, 1))


def _vocab(tokenizer: Any, model: Any, encoder_decoder: bool) -> SubwordVocab:
    generation = model.generation_config
    ends = generation.eos_token_id if generation.eos_token_id is not None else tokenizer.eos_token_id
    ends = [int(i) for i in ends] if isinstance(ends, list) else [] if ends is None else [int(ends)]
    eos = ends[0] if ends else None
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos  # (GPT-2 has none of its own)
    if encoder_decoder:
        start = generation.decoder_start_token_id
        start = model.config.decoder_start_token_id if start is None else start
    else:
        start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else eos
    if eos is None or start is None or pad is None:
        raise ValueError(tr("{path}: its config names no end-of-text token or decoder start token").format(
            path=model.name_or_path))
    size = int(model.get_output_embeddings().weight.shape[0])
    return SubwordVocab.of(tokenizer, size, bos_id=int(start), eos_id=int(eos), pad_id=int(pad), ends=tuple(ends))
