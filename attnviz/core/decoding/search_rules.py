"""How a search adjusts scores, ranks hypotheses and ends: attnviz's own rules or a library's.

attnviz's models follow d2l: keep the k best extensions, rank them with the ended ones by log p / T^0.75,
stop when all kept hypotheses ended. A Hugging Face model decodes as its library's ``generate`` does
(transformers 5.23, ``generation/utils.py`` ``_beam_search``): its logits processors (forced end token, bad
words, minimum length, …) adjust every step's log-probabilities; beam search takes 2k candidates, keeps the k
best that did not end running, lets an ended candidate among the first k join at most k finished hypotheses
scored log p / L^lp (L: tokens generated, the end token included; lp from the model's generation config),
and stops when no running beam can beat the worst finished one (``early_stopping``: False, True or "never").
Shapes: R live rows, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from torch import Tensor

from attnviz.core.decoding.hypothesis import Hypothesis
from attnviz.core.results import LENGTH_PENALTY

# (sentence of each row (R,), the tokens each row generated so far, log-probabilities (R, V)) -> adjusted (R, V)
Processor = Callable[[Sequence[int], Sequence[Sequence[int]], Tensor], Tensor]


@dataclass(frozen=True)
class SearchRules:
    """length_penalty: the exponent of the length in the ranking score; library: rank and stop as the
    library's beam search does (above) instead of attnviz's; early_stopping: the library's setting;
    process: adjusts each step's log-probabilities (the library's logits processors), or None; end_ids: every
    token that ends a hypothesis (the library takes (1 + their number) × k candidates)."""

    length_penalty: float = LENGTH_PENALTY
    library: bool = False
    early_stopping: bool | str = False
    process: Processor | None = field(default=None, compare=False)
    end_ids: tuple[int, ...] = ()  # more tokens that end a hypothesis than the search's eos_id
    logits: bool = False  # the model's step gives raw logits (the search normalises them, see BeamSearch)


@dataclass
class LibraryBeams:
    """One sentence's finished hypotheses (at most k, best first) and whether a running beam can still
    beat them (sticky once False)."""

    finished: list[Hypothesis] = field(default_factory=list)
    improvable: bool = True


class LibrarySearch(Protocol):
    """What :func:`library_step` reads and sets of a search (:class:`~attnviz.core.decoding.beam_search.BeamSearch`
    is one): its rules and beam size, the step it is at and its length limit, and per sentence its library state,
    its hypotheses and whether it is done."""

    rules: SearchRules
    beam_size: int
    steps_taken: int
    max_len: int
    library: list[LibraryBeams]
    hypotheses: list[list[Hypothesis]]
    done: list[bool]


def library_step(search: LibrarySearch, sentence: int, candidates: list[tuple[Hypothesis, int]]) -> list[int]:
    """Apply one step of the library's beam search to ``sentence``: ``candidates`` are its 2k best extensions
    (hypothesis, parent cache row), best first. Sets its hypotheses (``search.hypotheses``: the running ones, then
    the finished ones; once done, the finished ones best first), finished ones and ``search.done``; returns the
    cache rows of the running ones, in order."""
    rules, k = search.rules, search.beam_size
    state = search.library[sentence]
    at_limit = search.steps_taken + 1 >= search.max_len
    hit = [hyp.finished or at_limit for hyp, _ in candidates]  # the end token, or the length limit
    running = [(hyp, row) for (hyp, row), ended in zip(candidates, hit, strict=True) if not ended][:k]
    full = len(state.finished) == k
    for (hyp, _), ended in zip(candidates[:k], hit[:k], strict=True):
        if ended and state.improvable and not (rules.early_stopping is True and full):
            state.finished.append(hyp)
    state.finished = sorted(state.finished, key=lambda h: h.score(), reverse=True)[:k]
    generated = search.steps_taken + 1
    if running:
        horizon = search.max_len if rules.early_stopping == "never" and rules.length_penalty > 0 else generated
        best_possible = running[0][0].log_prob / horizon ** rules.length_penalty
        state.improvable = state.improvable and (len(state.finished) < k or best_possible > state.finished[-1].score())
    done = (not running or not state.improvable or (rules.early_stopping is True and len(state.finished) == k))
    search.done[sentence] = done
    if done:
        search.hypotheses[sentence] = state.finished or [hyp for hyp, _ in running]
        return []
    # the running beams (their cache rows, in order), then the finished ones, shown as ended in the Beams view
    search.hypotheses[sentence] = [*(hyp for hyp, _ in running), *state.finished]
    return [row for _, row in running]
