"""Patching heads into a live decoding: the window's "Patch into the decoding on show" (issue 58).

The sentence decoded is a pair's **corrupt** side; each patched head's output z_h (B, Q, H, Dh, before the output
projection) is taken, at every forward pass, from a run of the same model on the pair's **clean** side fed the same
target tokens (the same rows, the same beams, the same forced tokens): the ``denoise`` measure of
:mod:`attnviz.core.patching.engine`, applied to several heads at once and carried through the whole greedy (or beam)
decoding instead of one step. So with cross 3.1, 3.4, … patched from "he is tired ." the decoding of "she is tired ."
can start with "il" instead of "elle". The other heads, and everything downstream of the patched ones, are the corrupt
run's own.

:class:`PatchedTranslator` wraps a translation model's decoder interface (``start``, ``step``, ``state.reorder``:
:mod:`attnviz.core.models.translation`) so that the step-by-step decoding (:mod:`attnviz.core.decoding.stepping`)
runs patched through the one hook of the head gates (``intervene_heads``). :func:`patched_greedy` is the same
computation by brute force — every step a fresh teacher-forced pass on each side, no cache — that the tests compare
it with. Torch only, never Qt. Shapes: B rows, S source tokens, T target tokens, H heads, Dh a head's width.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.utils.hooks import RemovableHandle

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.heads.gates import _chains_by_kind, _layout_of
from attnviz.core.heads.mask import Head
from attnviz.core.patching.pairs import PairsError
from attnviz.core.text import source_words
from attnviz.i18n import tr

Slot = tuple[AttentionKind, int]  # (kind, layer)


def clean_source(loaded: Any, clean: str, corrupt: str) -> tuple[Tensor, Tensor]:
    """The clean side's ids (1, S) and valid length (1,) as the model reads it; PairsError when the two sides do not
    read as the same number of tokens (a head's output is replaced position by position)."""
    most = int(loaded.config.max_src_len)
    sides = [source_words(text, loaded.src_vocab, most) for text in (clean, corrupt)]
    ids = [list(s.ids) if s.ids is not None else loaded.src_vocab.ids(s.words) for s in sides]
    if not ids[0]:
        raise PairsError(tr("the clean sentence is empty"))
    if len(ids[0]) != len(ids[1]):
        raise PairsError(tr("{clean!r} reads as {count} tokens and {corrupt!r} as {other}: a head is patched position "
                            "by position, so both sides must read as the same number of tokens").format(
            clean=clean, corrupt=corrupt, count=len(ids[0]), other=len(ids[1])))
    return torch.tensor([ids[0]], dtype=torch.long), torch.tensor([len(ids[0])])


class _HeadSwap:
    """Hooks on the patched heads' layers: while :meth:`keeping`, each call's heads (B, Q, H, Dh) are kept per layer;
    while :meth:`swapping`, the patched heads of each call take the kept ones of the same call, in order."""

    def __init__(self, model: Any, heads: Iterable[Head]):
        chains = _chains_by_kind(model)
        layout = _layout_of(chains)
        self.heads = tuple(sorted(set(heads)))
        self.chosen: dict[Slot, Tensor] = {}  # (H,) True for each patched head of the layer
        for head in self.heads:
            shape = layout.shape_of(head.kind)
            if shape is None or not (0 <= head.layer < shape.layers and 0 <= head.head < shape.heads):
                raise PairsError(tr("this model has no head {head}").format(head=head))
            slot = (head.kind, head.layer)
            self.chosen.setdefault(slot, torch.zeros(shape.heads, dtype=torch.bool))[head.head] = True
        self._mode: str = ""
        self._kept: dict[Slot, list[Tensor]] = {}
        self._handles: list[RemovableHandle] = []
        for (kind, layer) in self.chosen:
            self._handles += chains[kind][layer].intervene_heads(self._hook((kind, layer)))

    def _hook(self, slot: Slot) -> Callable[[Tensor], Tensor | None]:
        def change(z: Tensor) -> Tensor | None:
            if self._mode == "keep":
                self._kept.setdefault(slot, []).append(z.detach())
                return None
            if self._mode == "swap":
                kept = self._kept.get(slot)
                if not kept:
                    raise RuntimeError(f"no clean output kept for {slot}")  # (a family calling a layer twice)
                clean = kept.pop(0)
                chosen = self.chosen[slot].to(z.device)[None, None, :, None]  # (1, 1, H, 1)
                return torch.where(chosen, clean.to(z.dtype), z)
            return None
        return change

    @contextmanager
    def keeping(self) -> Iterator[None]:
        self._mode, self._kept = "keep", {}
        try:
            yield
        finally:
            self._mode = ""

    @contextmanager
    def swapping(self) -> Iterator[None]:
        self._mode = "swap"
        try:
            yield
        finally:
            self._mode, self._kept = "", {}

    @property
    def handles(self) -> tuple[RemovableHandle, ...]:
        return tuple(self._handles)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []


@dataclass(frozen=True)
class PairedState:
    """The corrupt run's decoder state and the clean run's beside it, reordered together (beam search)."""

    state: Any
    clean: Any

    def reorder(self, index: Tensor) -> PairedState:
        return PairedState(self.state.reorder(index), self.clean.reorder(index))


class PatchedTranslator:
    """A translation model whose ``heads`` take their outputs from a run on ``clean`` (the module docstring): the
    decoder interface of :mod:`attnviz.core.models.translation` (``start``, ``step``), everything else the model's
    own. Its hooks live until :meth:`remove`. The source decoded must read as as many tokens as the clean side."""

    def __init__(self, loaded: Any, heads: Iterable[Head], clean: str, corrupt: str):
        self.model = loaded.model
        self.clean_ids, self.clean_valid = clean_source(loaded, clean, corrupt)
        self._swap = _HeadSwap(self.model, heads)
        self.heads = self._swap.heads

    def __getattr__(self, name: str) -> Any:  # (config, attention_modules, search_rules, …: the model's)
        return getattr(self.__dict__["model"], name)

    def to(self, device: torch.device | str) -> PatchedTranslator:
        self.model.to(device)
        return self

    def eval(self) -> PatchedTranslator:
        self.model.eval()
        return self

    @property
    def handles(self) -> tuple[RemovableHandle, ...]:
        """Its hooks' handles (a copy of the model made while they are on removes the copy's)."""
        return self._swap.handles

    def remove(self) -> None:
        self._swap.remove()

    def _clean_rows(self, src: Tensor) -> tuple[Tensor, Tensor]:
        if src.shape[1] != self.clean_ids.shape[1]:
            raise PairsError(tr("the sentence reads as {count} tokens and the clean side as {other}: a head is "
                                "patched position by position").format(count=src.shape[1],
                                                                       other=self.clean_ids.shape[1]))
        rows = src.shape[0]
        return (self.clean_ids.to(src.device).expand(rows, -1),
                self.clean_valid.to(src.device).expand(rows))

    def start(self, src: Tensor, src_valid_lens: Tensor, need_attention: bool = False) -> tuple[PairedState, Any]:
        clean_src, clean_valid = self._clean_rows(src)
        with self._swap.keeping():
            clean_state, _ = self.model.start(clean_src, clean_valid, need_attention=False)
        with self._swap.swapping():
            state, attention = self.model.start(src, src_valid_lens, need_attention=need_attention)
        return PairedState(state, clean_state), attention

    def step(self, tokens: Tensor, state: PairedState, need_attention: bool = False
             ) -> tuple[Tensor, PairedState, Any]:
        with self._swap.keeping():
            _, clean_next, _ = self.model.step(tokens, state.clean, need_attention=False)
        with self._swap.swapping():
            log_probs, corrupt_next, attention = self.model.step(tokens, state.state, need_attention=need_attention)
        return log_probs, PairedState(corrupt_next, clean_next), attention

    def search_rules(self, src: Tensor, src_valid_lens: Tensor, max_len: int, beam_size: int) -> Any:
        rules = getattr(self.model, "search_rules", None)
        if rules is None:
            from attnviz.core.decoding.search_rules import SearchRules

            return SearchRules()
        return rules(src, src_valid_lens, max_len, beam_size)


@torch.no_grad()
def patched_greedy(loaded: Any, heads: Iterable[Head], clean: str, corrupt: str,
                   device: torch.device | str = "cpu") -> list[str]:
    """The greedy translation of ``corrupt`` with ``heads`` patched from ``clean``, by brute force: at every step a
    fresh teacher-forced pass of the whole prefix on the clean side (its heads kept), then one on the corrupt side
    with the patched heads swapped in; the next token is the best one but <bos> and <pad> (the target tokens, without
    <eos>)."""
    device = torch.device(device)
    model = loaded.model.to(device).eval()
    tgt_vocab = loaded.tgt_vocab
    clean_ids, clean_valid = clean_source(loaded, clean, corrupt)
    most = int(loaded.config.max_src_len)
    words = source_words(corrupt, loaded.src_vocab, most)
    corrupt_ids = torch.tensor([list(words.ids) if words.ids is not None else loaded.src_vocab.ids(words.words)],
                               dtype=torch.long, device=device)
    valid = torch.tensor([corrupt_ids.shape[1]], device=device)
    banned = sorted({tgt_vocab.bos_id, tgt_vocab.pad_id} if getattr(tgt_vocab, "banned", None) is None
                    else set(tgt_vocab.banned))
    swap = _HeadSwap(model, heads)
    written: list[int] = []
    try:
        for _ in range(int(loaded.config.max_tgt_len)):
            target = torch.tensor([[tgt_vocab.bos_id, *written]], device=device)
            with swap.keeping():
                model(clean_ids.to(device), clean_valid.to(device), target)
            with swap.swapping():
                logits = model(corrupt_ids, valid, target)[0, -1].float()
            logits[banned] = float("-inf")
            token = int(logits.argmax())
            if token == tgt_vocab.eos_id:
                break
            written.append(token)
    finally:
        swap.remove()
    return [tgt_vocab.tokens[i] for i in written]
