"""A Hugging Face encoder-only model (BERT, DistilBERT, RoBERTa) filling masks, one per step.

:class:`HFEncoder` runs the model on one sentence or a pair through the library's own forward pass and
:mod:`attnviz.core.hf.attention`'s recording attention: every layer's weights and pre-softmax scores, and, where
the folder has a masked-language-model head, the logits at one position. :class:`HFMaskedLM` reads text with the
folder's own tokenizer for :class:`~attnviz.core.decoding.fill_mask.FillMaskSession` (``[MASK]`` or the tokenizer's mask
token marks a word to guess; ``[SEP]`` or its separator starts the second sentence of a pair, which becomes the
tokenizer's own pair encoding); :class:`HFFillMaskSession` is the stepping class of the ``hf-encoder`` kind.
A folder with the bare model (``BertModel``, no head) shows its attention and says, when a step is asked, that it
cannot fill a mask.
Shapes: B rows (one sentence: 1), S tokens (special tokens included), L layers, H heads, V vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.on_demand import LayerQueryKeys, QueryKeyStore
from attnviz.core.decoding.fill_mask import MASK, SEP, FillMaskSession, Prediction, ReadSentence
from attnviz.core.hf.attention import IMPLEMENTATION, AttentionCall, check_finite, recording, register, storing
from attnviz.core.hf.folder import Architecture, architecture_of
from attnviz.core.hf.variants import band, layer_variants
from attnviz.core.hf.vocab import CONTINUES, SubwordVocab, _tokenizer_errors
from attnviz.core.models.loaded import LoadedModel
from attnviz.core.models.translation import SourceSelfAttention
from attnviz.core.results import DecodeStep
from attnviz.core.text import check_text_size, valid_text
from attnviz.i18n import tr

__all__ = ["HFEncoder", "HFFillMaskSession", "HFMaskedLM", "Reading"]


@dataclass(frozen=True)
class Reading:
    """One forward pass: every layer's attention weights and scores (B, L, H, S, S) (masked cells -inf) and the
    logits (B, V) at the position asked (None: the bare model has no masked-language-model head)."""

    weights: Tensor
    scores: Tensor
    logits: Tensor | None


class HFEncoder(nn.Module):
    """A transformers ``*ForMaskedLM`` (or bare ``*Model``) of an encoder-only architecture, recording its
    attention. ``architecture``: its record (the folder's; else found by the model's ``model_type``); the record's
    paths start from the base model (:meth:`~attnviz.core.hf.folder.Architecture.root`)."""

    def __init__(self, model: Any, config: Any, architecture: Architecture | None = None):
        super().__init__()
        register()
        model.set_attn_implementation(IMPLEMENTATION)
        self.hf = model.eval()
        self.config = config  # attnviz's view of it (HFEncoderConfig: layers, heads, the longest sequence)
        self.architecture = architecture or architecture_of(model)
        self.has_head = model.get_output_embeddings() is not None  # (a bare model has no output layer)
        self.segment_count = int(getattr(model.config, "type_vocab_size", 0) or 0)  # (DistilBERT: none, 0)
        where = self.architecture.modules
        assert where.encoder_blocks and where.encoder_self  # (an encoder-only model's record)
        blocks: Any = self.architecture.root(model).get_submodule(where.encoder_blocks)  # (an nn.ModuleList)
        self._attention = [block.get_submodule(where.encoder_self) for block in blocks]
        self.variants = layer_variants(model.config, self.architecture)  # (what each layer's attention does)

    def residual_blocks(self) -> list[nn.Module]:
        """The blocks whose outputs are the residual stream (patching's grid), first layer first."""
        blocks: Any = self.architecture.root(self.hf).get_submodule(self.architecture.modules.encoder_blocks or "")
        return list(blocks)

    def attention_modules(self, kind: AttentionKind) -> list[nn.Module]:
        """Each layer's self-attention module (the model has no other kind)."""
        return list(self._attention) if kind is AttentionKind.ENCODER_SELF else []

    def _ordered(self, calls: list[AttentionCall]) -> list[AttentionCall]:
        order = {id(module): layer for layer, module in enumerate(self._attention)}
        return sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])

    @torch.inference_mode()
    def read(self, ids: Tensor, token_types: Tensor | None, position: int) -> Reading:
        """ids (B, S) of whole sentences (no padding), their token type ids (B, S) or None where the tokenizer
        makes none -> every layer's attention and the logits at ``position``."""
        inputs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        if token_types is not None:
            inputs["token_type_ids"] = token_types
        with recording() as calls:
            out = self.hf(**inputs)
        layers = self._ordered(calls)
        weights = torch.stack([c.weights for c in layers], dim=1)  # (B, L, H, S, S)
        scores = torch.stack([c.scores for c in layers], dim=1)
        logits = out.logits[:, position].float() if self.has_head else None
        if logits is not None:
            check_finite(logits)  # (no word is ranked from NaN)
        return Reading(weights, scores, logits)

    def masked_logits(self, tokens: Tensor, segments: Tensor, position: int) -> Tensor:
        """Whole sentences tokens (B, S), token type ids (B, S) (read where the model has more than one type) -> the
        logits (B, V) at column ``position``, gradients flowing (patching, core/patching); ValueError for a bare
        model (no masked-language-model head)."""
        if not self.has_head:
            raise ValueError(tr("this folder has no masked-language-model head: it names no word"))
        inputs = {"input_ids": tokens, "attention_mask": torch.ones_like(tokens)}
        if self.segment_count > 1:
            inputs["token_type_ids"] = segments
        return self.hf(**inputs).logits[:, position]

    @property
    def prompt_positions(self) -> int:
        """The positions the model has (its config's, after the table's offset: RoBERTa's 514 rows are 512): the
        longest sequence it reads, special tokens included."""
        config = self.hf.config
        positions = int(getattr(config, self.architecture.positions or "", 0) or 0)
        return max(positions - self.architecture.offset(config), 0)

    def query_key_bytes(self, tokens: int) -> int:
        """The bytes :meth:`query_keys` keeps for one ``tokens``-long sequence at most: queries and keys of every
        layer (L·2H·S·D in the model's dtype) and the padding mask (S² booleans)."""
        config = self.hf.config
        heads = int(getattr(config, self.architecture.heads[0]))
        width = int(getattr(config, self.architecture.width)) // heads
        size = next(self.hf.parameters()).element_size()
        return len(self._attention) * 2 * heads * tokens * width * size + tokens * tokens

    def query_keys(self, ids: Tensor, valid_lens: Tensor, token_types: Tensor | None = None) -> QueryKeyStore:
        """ids (B, S) right-padded whole sentences, their valid lengths (B,) and token type ids (B, S) (None: the
        tokenizer makes none) -> what recomputes any map of the self-attention (B, L, H, S, S) without making one
        (:mod:`attnviz.core.attention.on_demand`): one forward pass of the base model (no masked-language-model
        head: its S × V logits are not made) that keeps each layer's queries and keys; padding keys hidden."""
        mask = (torch.arange(ids.shape[1], device=ids.device)[None, :] < valid_lens[:, None]).long()
        inputs = {"input_ids": ids, "attention_mask": mask}
        if token_types is not None:
            inputs["token_type_ids"] = token_types
        with torch.inference_mode(), storing() as calls:
            self.architecture.root(self.hf)(**inputs)
        order = {id(module): layer for layer, module in enumerate(self._attention)}
        layers = sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])
        return QueryKeyStore([LayerQueryKeys(c.query, c.key, c.scale, c.hidden, c.softcap, c.sinks,
                                            band(self.variants, i))
                              for i, c in enumerate(layers)])

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False,
              segments: Tensor | None = None) -> tuple[None, SourceSelfAttention | None]:
        """The one pass a translator's ``start`` makes, for the Computation view: src (1, S) whole-sentence ids,
        segments (1, S) token type ids (None: the tokenizer makes none) -> (no state, every layer's attention)."""
        if int(src_valid_lens.min()) < src.shape[1]:
            raise ValueError("an encoder-only folder's sentence is read whole, without padding")
        types = segments if self.segment_count > 1 else None  # (RoBERTa's one type, DistilBERT's none: not read)
        reading = self.read(src, types, 0)
        return None, SourceSelfAttention(reading.weights, reading.scores) if need_attention else None


def _written(*forms: str | None) -> re.Pattern[str]:
    """Any of ``forms`` as the user may write them (``[MASK]`` also as ``[mask]``)."""
    return re.compile("|".join(re.escape(form) for form in dict.fromkeys(f for f in forms if f)), re.IGNORECASE)


class HFMaskedLM:
    """The masked-language model of a Hugging Face folder, read with its own tokenizer (the interface of
    :class:`~attnviz.core.decoding.fill_mask.MaskedLanguageModel`)."""

    def __init__(self, loaded: LoadedModel, device: torch.device):
        self.model = cast(HFEncoder, loaded.model.to(device).eval())
        self.vocab = cast(SubwordVocab, loaded.src_vocab)
        self.tokenizer = self.vocab.tokenizer
        self.name = loaded.name
        self.device = device
        self.positions = int(loaded.config.max_src_len)
        self.has_head = self.model.has_head
        self.mask_id: int | None = self.tokenizer.mask_token_id
        self.mask_token = self.vocab.tokens[self.mask_id] if self.mask_id is not None else MASK
        self._masks = _written(MASK, self.tokenizer.mask_token)
        self._separators = _written(SEP, self.tokenizer.sep_token)
        self._makes_types = "token_type_ids" in self.tokenizer.model_input_names and \
            self.model.segment_count > 0  # (the tokenizer's token type ids are the model's input: BERT)
        self._special = np.array(sorted(i for i in self.tokenizer.all_special_ids if 0 <= i < len(self.vocab)), int)

    def read(self, text: str) -> ReadSentence:
        """``text`` as the model reads it: the tokenizer's encoding of one sentence, or of a pair where ``[SEP]``
        (or its separator) stands between two. ValueError: a mask the tokenizer cannot write, too many tokens (text
        over 64 KiB is refused before it is tokenized). A byte that was not UTF-8 is read as U+FFFD."""
        check_text_size(text)
        text = valid_text(text)
        if self.mask_id is None and self._masks.search(text):
            raise ValueError(tr("the tokenizer of {name} has no mask token, so this model cannot be asked for a "
                                "masked word").format(name=self.name))
        if self.mask_id is not None:
            text = self._masks.sub(lambda _: str(self.tokenizer.mask_token), text)
        first, *rest = self._separators.split(text, maxsplit=1) if self.tokenizer.sep_token else [text]
        second = rest[0].strip() if rest and rest[0].strip() else None
        with _tokenizer_errors():
            encoding = self.tokenizer(first.strip(), second)
        ids = [int(i) for i in encoding["input_ids"]]
        if len(ids) > self.positions:
            message = (tr("The sentence is {count} tokens long with the tokenizer's special tokens; this model reads "
                          "at most {most}.") if second is None else
                       tr("The two sentences are {count} tokens long together with the tokenizer's special tokens; "
                          "this model reads at most {most}."))
            raise ValueError(message.format(count=len(ids), most=self.positions))
        segments = self._segments(encoding, len(ids), second is not None)
        if self._makes_types and max(segments, default=0) >= self.model.segment_count:
            raise ValueError(tr("{name} reads one sentence at a time (it has no segment embedding for a second): "
                                "leave out {sep}").format(name=self.name, sep=self.tokenizer.sep_token or SEP))
        return ReadSentence(self._shown(ids, segments), tuple(ids), segments, self._unknown(text, ids))

    def _segments(self, encoding: Any, size: int, pair: bool) -> tuple[int, ...]:
        """0 for the first sentence and the special tokens before the second, 1 from the second sentence's first
        token on: the tokenizer's token type ids where it makes them (BERT), else read off which sentence each
        token came from (DistilBERT, RoBERTa)."""
        if not pair:
            return (0,) * size
        if self._makes_types and "token_type_ids" in encoding:
            return tuple(int(t) for t in encoding["token_type_ids"])
        try:
            sources = list(encoding.sequence_ids())
        except ValueError:  # (a tokenizer of the slow kind does not say: the second starts after the first separator)
            ids = list(encoding["input_ids"])
            sep = self.tokenizer.sep_token_id
            sources = [None] * (ids.index(sep) + 1 if sep in ids else size) + [1] * size
        start = next((i for i, source in enumerate(sources[:size]) if source == 1), size)
        return tuple(int(i >= start) for i in range(size))

    def _shown(self, ids: list[int], segments: tuple[int, ...]) -> tuple[str, ...]:
        """Readable tokens; each sentence's first word shown as a word (a byte-level tokenizer writes it as a piece:
        no space before it)."""
        tokens = list(self.vocab.to_tokens(ids))
        special = set(self._special.tolist())
        for segment in set(segments):
            first = next((i for i, (token_id, s) in enumerate(zip(ids, segments, strict=True))
                          if s == segment and token_id not in special), None)
            if first is not None and tokens[first].startswith(CONTINUES):
                tokens[first] = tokens[first][len(CONTINUES):]
        return tuple(tokens)

    def _unknown(self, text: str, ids: list[int]) -> tuple[str, ...]:
        """The words of ``text`` read as the unknown token."""
        unknown = self.tokenizer.unk_token_id
        if unknown is None or unknown not in ids:
            return ()
        with _tokenizer_errors():
            return tuple(dict.fromkeys(w for w in text.split() if unknown in self.tokenizer(
                w, add_special_tokens=False)["input_ids"]))

    def predict(self, ids: tuple[int, ...], segments: tuple[int, ...], position: int) -> Prediction:
        tokens = torch.tensor([ids], dtype=torch.long, device=self.device)
        types = torch.tensor([segments], dtype=torch.long, device=self.device) if self._makes_types else None
        reading = self.model.read(tokens, types, position)
        probs = (torch.softmax(reading.logits[0], dim=-1).cpu().numpy() if reading.logits is not None
                 else np.zeros(len(self.vocab), np.float32))
        return Prediction(reading.weights[0].float().cpu().numpy(), reading.scores[0].float().cpu().numpy(), probs)

    def word(self, index: int) -> str:
        return self.vocab.tokens[index]

    def word_id(self, word: str) -> int:
        if word not in self.vocab or self.vocab.ids([word])[0] in set(self._special.tolist()):
            raise ValueError(tr("the model cannot fill in {word!r}: its vocabulary has no such word").format(word=word))
        return self.vocab.ids([word])[0]

    def proposable(self, probs: np.ndarray) -> np.ndarray:
        """``probs`` with the tokenizer's special tokens at 0: a mask is filled with a word, never with ``[SEP]`` or
        the mask itself (the others keep the model's own probabilities)."""
        probs = probs.copy()
        probs[self._special] = 0
        return probs


class HFFillMaskSession(FillMaskSession):
    """Fill the masks of one sentence with a Hugging Face encoder-only model, step by step."""

    @staticmethod
    def reader_for(loaded: LoadedModel, device: torch.device) -> HFMaskedLM:
        return HFMaskedLM(loaded, device)

    def step(self, force: str | None = None) -> DecodeStep:
        """Fill the first open mask; ValueError when the folder's model has no masked-language-model head."""
        reader = cast(HFMaskedLM, self.reader)
        if not reader.has_head:
            record = reader.model.architecture
            raise ValueError(tr("{name} holds the bare {model} without a masked-language-model head: attnviz shows its "
                                "attention, but it cannot fill a mask (open a {masked} folder for that)").format(
                name=reader.name, model=record.bare, masked=record.masked_lm[0]))
        return super().step(force)
