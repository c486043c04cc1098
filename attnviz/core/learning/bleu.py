"""Corpus BLEU on preprocessed text (sacrebleu, tokenize='none'), every reference of a source used."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU

from attnviz.i18n import tr

STATISTICS = 10  # sacrebleu's counts per corpus: hypothesis length, reference length, 4 matches, 4 totals


def _streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """references[i] (a list per hypothesis, of varying length) as sacrebleu's reference streams."""
    width = max((len(r) for r in references), default=1)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]


def bleu_statistics(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """BLEU's sufficient statistics (int64, (10,)) of these sentences, as :func:`corpus_bleu` scores them: sums
    of any parts of a corpus add up to the corpus's own, so processes can add theirs exactly
    (:func:`bleu_from_statistics`). No sentences: zeros."""
    if len(hypotheses) != len(references):
        raise ValueError(tr("{hypotheses} hypotheses but {references} reference lists").format(
            hypotheses=len(hypotheses), references=len(references)))
    if not hypotheses:
        return np.zeros(STATISTICS, np.int64)
    metric = BLEU(tokenize="none", force=True)
    # (sacrebleu's corpus_score is this sum followed by _compute_score_from_stats; tests check they agree)
    rows = metric._extract_corpus_statistics(list(hypotheses), cast(Any, _streams(references)))
    return np.asarray(rows, np.int64).reshape(-1, STATISTICS).sum(0)


def bleu_from_statistics(statistics: np.ndarray) -> float:
    """Corpus BLEU from summed :func:`bleu_statistics` (the same number :func:`corpus_bleu` gives)."""
    counts = [int(v) for v in np.asarray(statistics, np.int64)]
    score = BLEU.compute_bleu(correct=counts[2:6], total=counts[6:10], sys_len=counts[0], ref_len=counts[1],
                              smooth_method="exp")
    return float(score.score)


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """hypotheses[i] is scored against all strings in references[i] (their number may vary)."""
    if len(hypotheses) != len(references):
        raise ValueError(tr("{hypotheses} hypotheses but {references} reference lists").format(
            hypotheses=len(hypotheses), references=len(references)))
    if not hypotheses:
        raise ValueError(tr("no sentences to score"))
    width = max((len(r) for r in references), default=1)
    streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
    # force=True: the text is tokenized on purpose (the book's preprocessing), so sacrebleu's
    # "forgot to detokenize" warning would only be noise on the user's stderr.
    return float(sacrebleu.corpus_bleu(list(hypotheses), cast(Any, streams), tokenize="none", force=True).score)
