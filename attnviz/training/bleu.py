"""Corpus BLEU on preprocessed text (sacrebleu, tokenize='none'), every reference of a source used."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import sacrebleu

from attnviz.i18n import tr


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
