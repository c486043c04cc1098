"""Plain results the views draw: frozen dataclasses of numpy arrays, and numpy helpers for them.

numpy only (no torch, no Qt): the GUI imports this module at start-up, long before the worker
thread has imported torch to load a model.
Shapes: L layers, H heads, S source tokens, T decoded steps so far, k top-k size, N training
points, M test points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.layout import ENCODER_DECODER, OnDemandMaps, Picture, SequenceLayout
from attnviz.i18n import N_

KERNELS = ("gaussian", "boxcar", "epanechnikov", "constant")  # constant: average pooling


@dataclass(frozen=True)
class EncodedSource:
    """The source as the model sees it.

    tokens: S source tokens after preprocessing and truncation (unknown words kept as typed).
    unknown: the words that were mapped to <unk>; truncated_from: original length if truncated.
    encoder_weights, encoder_scores: (L, H, S, S) encoder self-attention (Transformer), else None.
    padding_mask: (S,) bool, True for keys the decoder may attend to.
    layout: how the model lays its attention out (``attnviz.core.layout``): what its kinds are called, what
        each map's axes hold, which cells are masked. Views ask it, never the model's family.
    ids: the S ids the model read, where a subword tokenizer gave them (its tokens may not map back to
        them: a first word shown without its continuation mark); None for attnviz's own vocabularies.
    segments: (S,) int, the segment of each token (0: sentence A, 1: sentence B of a pair), or None (one part).
    picture: an image's pixels and where each position lies on them (an image model's input: ``text`` is the file's
        name and ``tokens`` the positions' labels, :func:`attnviz.core.layout.patch_labels`), else None.
    classes, class_probs: an image model's most likely classes, best first, and their (k,) probabilities.
    on_demand: an input too long to record every map (issue 49: a Hugging Face decoder-only model's prompt, an
        encoder-only model's sentence or an encoder–decoder's source beyond its decoding cap): ``encoder_weights``
        and ``encoder_scores`` are None and this says its (L, H) and holds the one map computed for the view on
        show; else None.
    layer_notes: per layer of the model's one stack, what that layer's attention does beyond the plain one
        ("sliding window 512", "no positions", "": nothing; :mod:`attnviz.core.hf.variants`), shown in every map's
        title; () where the model's layers are all alike.
    learned_sink: the model's heads have a learned sink logit (gpt-oss): each row of weights over the real keys sums
        to 1 − p_sink, and the maps show p_sink as a column of its own after the keys.
    """

    text: str
    tokens: tuple[str, ...]
    unknown: tuple[str, ...]
    truncated_from: int | None
    encoder_weights: np.ndarray | None
    encoder_scores: np.ndarray | None
    padding_mask: np.ndarray
    layout: SequenceLayout = ENCODER_DECODER
    ids: tuple[int, ...] | None = None
    segments: np.ndarray | None = None
    picture: Picture | None = None
    classes: tuple[str, ...] = ()
    class_probs: np.ndarray | None = None
    on_demand: OnDemandMaps | None = None
    layer_notes: tuple[str, ...] = ()
    learned_sink: bool = False


LENGTH_PENALTY = 0.75  # beam search ranks hypotheses by log P / T^α (d2l 0.17 §9.8; §10.8 in d2l 1.0)


def length_normalised(log_prob: float, length: int, penalty: float = LENGTH_PENALTY) -> float:
    """The score beam search ranks a hypothesis of ``length`` tokens (<eos> included) by: log P / T^0.75 (a
    Hugging Face model: T to its generation config's ``length_penalty``)."""
    return log_prob / max(length, 1) ** penalty


@dataclass(frozen=True)
class Beam:
    """One hypothesis: its tokens so far (no <bos>; <eos> last once it ended), log-probability and whether
    it ended."""

    tokens: tuple[str, ...]
    log_prob: float
    finished: bool
    cross_weights: np.ndarray | None = None  # (L, H, T, S): its own cross-attention (beam search only)
    length_penalty: float = LENGTH_PENALTY  # the exponent of T in its score

    @property
    def score(self) -> float:
        """What beam search ranks it by: the length-normalised log-probability (:func:`length_normalised`)."""
        return length_normalised(self.log_prob, len(self.tokens), self.length_penalty)


@dataclass(frozen=True, eq=False)
class PositionalDescription:
    """How a model knows positions, for the Positional-encoding panel.

    kind: "sinusoidal", "learned", "rotary (RoPE)" or "none"; note: one sentence saying what it is (in the
        interface's language; kind, row_axis and col_axis are marked with ``N_``: ``tr()`` them where shown).
    table: (N, D) the vectors added per position (RoPE: the cos/sin of its angles), or None.
    levels: the table's fixed colour range, or None (its own range: a learned table).
    rope_frequencies: (D/2,) θ_i of each rotated pair; rope_decay: (N,) (1/(D/2)) Σ_i cos(m·θ_i), the
        rotated dot product of two all-ones vectors m positions apart over its value at m = 0 (RoPE only).
    row_values: (N,) what each table row stands for (T5: the relative distance key − query), or None
        (positions 0…N−1); row_axis, col_axis: the table's axis names; vectors: the table holds vectors
        added per position (PE·PEᵀ means something), not T5's per-head biases.
    """

    kind: str
    note: str
    table: np.ndarray | None = None
    levels: tuple[float, float] | None = None
    rope_frequencies: np.ndarray | None = None
    rope_decay: np.ndarray | None = None
    row_values: np.ndarray | None = None
    row_axis: str = N_("position")
    col_axis: str = N_("dimension")
    vectors: bool = True


@dataclass(frozen=True)
class DecodeStep:
    """What one decoder step produced, for the best hypothesis after the step.

    index: 0-based step number; token: the token chosen at this step (``<eos>`` at the end).
    output_tokens: best hypothesis so far without <bos>/<eos>; query_tokens: the T decoder inputs
        whose queries produced the rows below (<bos>, y1, …).
    topk_tokens, topk_probs: (k,) the next-token distribution of this step, most likely first.
    cross_weights, cross_scores: (L, H, T, S); self_weights, self_scores: (L, H, T, T) or None (RNN).
        Masked cells have weight exactly 0; self_scores are 0 above the diagonal (never computed).
    causal_mask: (T, T) bool, True where attention is allowed.
    """

    index: int
    token: str
    finished: bool
    output_tokens: tuple[str, ...]
    query_tokens: tuple[str, ...]
    topk_tokens: tuple[str, ...]
    topk_probs: np.ndarray
    cross_weights: np.ndarray
    cross_scores: np.ndarray
    self_weights: np.ndarray | None
    self_scores: np.ndarray | None
    causal_mask: np.ndarray
    beams: tuple[Beam, ...]
    seconds: float
    forced: bool = False  # the user made the decoder take ``token`` (teacher forcing), not its own choice
    focus: int | None = None  # the query row this step predicted from (None: the newest, the last row)
    query_ids: tuple[int, ...] | None = None  # the ids behind query_tokens where they are not the vocabulary's (a
    # subword encoder-only model's sentence, its masks so far filled in); None: the vocabulary's ids of the tokens

    @property
    def ended(self) -> bool:
        """Decoding stopped at this step's end-of-text token (``<eos>``, a tokenizer's ``</s>``), not at the
        length limit: that token is the one query-less output, left out of ``output_tokens``."""
        return self.finished and len(self.output_tokens) < len(self.query_tokens)


@dataclass(frozen=True)
class BatchDecoding:
    """Sentences decoded together as one padded batch (greedy), as training feeds them.

    sources: one per sentence, each padded to the batch's S_max keys with ``<pad>`` tokens and its
    padding_mask (S_max,) True for its own tokens (its valid length); steps: each sentence's last
    step, with attention over all S_max keys (exactly 0 on its padding).
    """

    sources: tuple[EncodedSource, ...]
    steps: tuple[DecodeStep, ...]

    @property
    def valid_lens(self) -> tuple[int, ...]:
        return tuple(int(source.padding_mask.sum()) for source in self.sources)


@dataclass(frozen=True)
class Comparison:
    """A second translation model on the same sentence, for the Compare panel.

    model: its checkpoint's file stem; kind: its kind; source: the sentence as it reads it.
    own_translation: what it says by itself (greedy). target: the first model's output it was forced to
    take (so both models' queries are the same tokens); steps: its decoding of that target, one step per
    token of it (rows line up with the first model's steps).
    """

    model: str
    kind: str
    source: EncodedSource
    own_translation: tuple[str, ...]
    target: tuple[str, ...]
    steps: tuple[DecodeStep, ...]


@dataclass(frozen=True)
class ImageComparison:
    """A second image model on the image on show, for the Compare panel: model, its name (file stem or folder
    name); kind, its kind; source, the image as it reads it (its own patch grid, maps and top classes)."""

    model: str
    kind: str
    source: EncodedSource


@dataclass(frozen=True)
class KernelFit:
    """Everything the kernel-regression view draws, as numpy: N training points, M test points.

    x_train, y_train (N,); x_test, y_test (M,) with the true function; for the chosen kernel and
    bandwidth the non-parametric predictions (M,) and weights (M, N); the trained parametric
    model's (learned ``w``) predictions (M,) and weights (M, N); and for one ``query`` x both
    models' weight rows (N,) and predictions.
    """

    kernel: str
    bandwidth: float
    w: float
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    nonparametric: np.ndarray
    nonparametric_weights: np.ndarray
    parametric: np.ndarray
    parametric_weights: np.ndarray
    query: float
    query_nonparametric: float
    query_nonparametric_weights: np.ndarray
    query_parametric: float
    query_parametric_weights: np.ndarray

    def test_mse(self) -> tuple[float, float]:
        """Mean squared error against the true function on the test grid: (non-parametric, parametric)."""
        return (float(np.nanmean((self.nonparametric - self.y_test) ** 2)),
                float(np.mean((self.parametric - self.y_test) ** 2)))


def masked_softmax_row(scores: np.ndarray, valid_len: int) -> np.ndarray:
    """NumPy masked softmax of one row of scores (K,) with the first ``valid_len`` keys visible.

    The same rule as :func:`masked_softmax`: masked keys get exactly 0, a row with no visible key
    is all zeros. For views that replay masking on scores they already hold.
    """
    from attnviz.core.attention.computation import masked_softmax  # (the rule for any visible set, numpy)

    scores = np.asarray(scores, dtype=np.float64)
    return masked_softmax(scores, np.arange(scores.shape[-1]) < int(valid_len)).astype(np.float32)
