"""What every column of the CSV files of ``attnviz heads`` and ``attnviz explain`` means: the one source of the
``COLUMNS.md`` each command writes beside its files and of the user guide's tables (``tests/test_columns.py`` checks
that ``docs/columns.md`` holds them word for word and that every file's header is described here).

A cell that has no value says why in words (``n/a`` with the reason given here, ``none``, ``no such key``…);
no cell is left empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attnviz.i18n import N_, tr

NOT_APPLICABLE = "n/a"  # a statistic that a kind of attention does not have (the column's text says which)
NO_SUCH_KEY = "no such key"  # sinks.csv: no token of that class among the keys of that attention, in any step
ONE_ROW, COLUMN, MEANING = N_("One row: {row}."), N_("column"), N_("meaning")

HEADS_CSV = "heads.csv"
PRUNING_CSV = "pruning.csv"
AGREEMENT_CSV = "agreement.csv"
LAYERS_CSV = "layers.csv"
SINKS_CSV = "sinks.csv"
ATLAS_FIGURE_CSV = "atlas_STATISTIC.csv"  # the figures' numbers (--format csv); their headers are the axes' names
IMPORTANCE_FIGURE_CSV = "importance_per_head.csv, importance_normalised_per_head.csv"
PRUNING_FIGURE_CSV = "pruning_curve.csv"
TAU_FIGURE_CSV = "tau_A_vs_B.csv"
LAYERS_FIGURE_CSV = "layers_spearman_vs_REFERENCE.csv"
IMAGE_HEADS_CSV = "image_heads.csv"  # attnviz heads over a folder of images (an image model)
DISTANCES_CSV = "distances_by_layer.csv"
IMAGE_HEADS_FILES = (IMAGE_HEADS_CSV, DISTANCES_CSV)
SINKS_BY_POSITION_CSV = "sinks_by_position.csv"  # heads --documents, explain: sinks by the query's position
SINKS_FIGURE_CSV = "sinks_first_weight.csv, sinks_first_norm.csv"
SINKS_KIND_FIGURE_CSV = "sinks_first_weight_KIND.csv, sinks_first_norm_KIND.csv"  # heads over decoding: one per kind
DOCUMENTS_FILES = (HEADS_CSV, SINKS_BY_POSITION_CSV, ATLAS_FIGURE_CSV, SINKS_FIGURE_CSV)
HEADS_FILES = (HEADS_CSV, PRUNING_CSV, SINKS_BY_POSITION_CSV, ATLAS_FIGURE_CSV, IMPORTANCE_FIGURE_CSV,
               PRUNING_FIGURE_CSV, SINKS_KIND_FIGURE_CSV)
EXPLAIN_FILES = (AGREEMENT_CSV, LAYERS_CSV, SINKS_CSV, SINKS_BY_POSITION_CSV, TAU_FIGURE_CSV, LAYERS_FIGURE_CSV)
IMAGE_EXPLAIN_FILES = (AGREEMENT_CSV, LAYERS_CSV, TAU_FIGURE_CSV, LAYERS_FIGURE_CSV)  # attnviz explain over images
PATCHING_CSV = "patching.csv"  # attnviz patch: one row per head
PAIRS_CSV = "pairs.csv"  # attnviz patch: one row per pair and head
DISAGREEMENTS_CSV = "disagreements.csv"  # attnviz patch: the heads where attribution patching misses
RESIDUAL_CSV = "residual.csv"  # attnviz patch: one row per pair, layer and input position
PATCH_FILES = (PATCHING_CSV, PAIRS_CSV, DISAGREEMENTS_CSV, RESIDUAL_CSV)
_MEASURE_COLUMNS = (
    ('denoise', N_("the share of the logit difference restored when the head's output (all positions, before the "
                   'output projection) is taken from the clean run into the corrupt one: (m − m_corrupt) / '
                   '(m_clean − m_corrupt)')),
    ('noise', N_("the share lost when the head's output is taken from the corrupt run into the clean one: "
                 '(m_clean − m) / (m_clean − m_corrupt)')),
    ('pattern', N_("the share restored when only the head's attention weights come from the clean run (its own "
                   'values): whether it matters for where it looks')),
    ('values', N_("the share restored when only the head's values come from the clean run (its own attention "
                  'weights): whether it matters for what it reads')),
    ('atp', N_("attribution patching's estimate of `denoise`: (z_clean − z_corrupt)·∂m/∂z at the corrupt run, over "
               'the logit difference')),
)

# (file, what one row is, ((column, meaning), …)); heads.csv's columns in the order the file has them
COLUMNS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (HEADS_CSV, N_('one attention head (its statistics are means over every attention row of the decoded corpus)'), (
        ('kind', N_("enc-self (encoder self-attention), dec-self (decoder self-attention; a decoder-only model's "
                    'one self-attention) or cross (cross-attention)')),
        ('layer', N_('the layer, from 1 (nearest the input)')),
        ('head', N_('the head within the layer, from 1')),
        ('entropy', N_('mean entropy of a row, −Σ w ln w, in nats')),
        ('confidence', N_('mean largest weight of a row, every key included')),
        ('confidence_without_end', N_("Voita et al. 2019's confidence: mean largest weight over the keys other than"
                                      " the end of the source (a Hugging Face translator's `</s>`; the source's "
                                      "last token, nearly always its final punctuation, for attnviz's own models, "
                                      'whose source has no end token); equals `confidence` where the keys hold no '
                                      "source (a Transformer's dec-self)")),
        ('previous', N_("mean weight on the key one position before the query's own (cross: the target position)")),
        ('same', N_("mean weight on the key at the query's own position")),
        ('next', N_("mean weight on the key one position after the query's own")),
        ('sink', N_('mean weight on the first key, the end of the source and punctuation together')),
        ('sink_first', N_('mean weight on the first key (`<bos>` in a decoder, the first source token in an '
                          'encoder)')),
        ('sink_end', N_("mean weight on the end of the source (0 where the keys hold no source: a Transformer's "
                        'dec-self)')),
        ('sink_punct', N_('mean weight on punctuation keys')),
        ('distance', N_('mean |query − key| distance, in positions, weighted by the attention')),
        ('rare', N_('share of rows whose largest weight falls on a least frequent source token of the sentence '
                    "(Voita et al. 2019's rare-word heads); frequency counted over the distinct source sentences of"
                    ' `--data` as the model splits them, every token tied for least frequent counting; `n/a` for '
                    'dec-self, whose keys are not the source')),
        ('rare_chance', N_("what `rare` would be if each row's argmax fell on one of its keys at random: the mean "
                           "share of a row's keys that are a least frequent source token; `n/a` for "
                           'dec-self')),
        ('diagonal', N_('cross only: mean weight on source position round(i (S − 1) / (T − 1)) of target row i; '
                        '`n/a` for the other kinds')),
        ('monotonic', N_("cross only: mean weight on the running maximum of the rows' argmax positions (a monotone "
                         'alignment read off the head); `n/a` for the other kinds')),
        ('importance', N_('raw importance E|∂L/∂ξ_h| (Michel et al. 2019): the mean over (source, target) pairs of '
                          "the gradient of the pair's mean token cross-entropy with respect to the head's gate; `n/a`"
                          ' with `--documents` (not measured)')),
        ('importance_normalised', N_("the importance divided by the ℓ2 norm of its layer's importances (per kind): "
                                     'the score the pruning order sorts by, least important first')),
        ('positional_offset', N_("the relative position key − query (−4 … +4) that is most often the row's argmax "
                                 '(cross: key − target position)')),
        ('positional_share', N_('the share of rows whose argmax is at `positional_offset`')),
        ('positional', N_("yes when `positional_share` ≥ 0.9: Voita et al. 2019's positional head")),
        ('alignment', N_('with `--task` only, cross only: the share of target tokens whose strongest attention '
                         "falls on a source position they come from in the task's true alignment; `n/a` for the "
                         'other kinds')),
    )),
    (PRUNING_CSV, N_('BLEU with a number of heads switched off (ξ_h = 0), in one order'), (
        ('order', N_('importance (least important first, by `importance_normalised`) or random (the mean of '
                     '`--seeds` seeded random orders)')),
        ('heads_pruned', N_('how many heads are off')),
        ('percent_pruned', N_("the same as a percentage of all the model's heads")),
        ('bleu', N_("corpus BLEU on the reference lines (0–100); heads_pruned 0 is `attnviz eval`'s BLEU")),
        ('head', N_('importance rows: the head switched off last (kind:layer.head); `none` where no head is off; '
                    'random rows: `mean of the random orders` (each order switches other heads off)')),
        ('head_importance_normalised', N_("importance rows: that head's `importance_normalised`; `none` and `mean "
                                          'of the random orders` as in `head`')),
    )),
    (AGREEMENT_CSV, N_('one pair of explanation methods over every explained token (an image model: every image)'), (
        ('method_a', N_("the first method: attention (raw, the last layer's heads' mean), rollout, flow, norm "
                        '(norm-based), grad_x_input, grad_x_input_detached, ig (integrated gradients), occlusion, '
                        'leave_one_out, leave_one_out_tvd; an image model: attention ([CLS]\'s row over the '
                        'patches), rollout, grad_x_input, ig and occlusion (each patch made black), over its '
                        'patches')),
        ('method_b', N_('the second method; `|name|` is that signed row taken as magnitudes')),
        ('tokens', N_('the tokens (an image model: the images) where both rows have an order (a constant row has '
                      'none); the other columns read `no token with an order` where there is none')),
        ('images', N_("an image model's run, in place of `tokens`: the images where both rows have an order")),
        ('tau_mean', N_('mean Kendall τ-b of the two rows over those tokens')),
        ('tau_q1', N_('the first quartile of τ')),
        ('tau_median', N_('the median of τ')),
        ('tau_q3', N_('the third quartile of τ')),
        ('rho_mean', N_('mean Spearman ρ')),
        ('significant', N_('the share of tokens whose τ is significant at p < 0.05 (two-sided; exact without ties, '
                           'else the normal approximation with ties), Jain & Wallace 2019\'s "Sig. Frac."')),
    )),
    (LAYERS_CSV, N_("one attention-based method, one reference method and one layer (Abnar & Zuidema 2020's table)"), (
        ('method', N_("attention (raw, the heads' mean), rollout, flow or norm, read after this layer")),
        ('reference', N_('occlusion (each input token replaced by `<unk>`, an image\'s patch made black) or ig '
                         '(integrated gradients)')),
        ('layer', N_("the layer of the attention explained, from 1 (a translator: its decoder layers' "
                     'cross-attention; the small BERT: its encoder layers at the masked position; an image model: '
                     "its layers' [CLS] row)")),
        ('spearman_mean', N_("mean Spearman ρ of the method's row with the reference's row (`no token with an "
                             'order` where every row was constant)')),
        ('tokens', N_('the tokens (an image model: the images) averaged (a constant row has no ρ)')),
        ('images', N_("an image model's run, in place of `tokens`: the images averaged")),
    )),
    (SINKS_CSV, N_('one kind of attention, one layer and one class of keys (Kobayashi et al. 2020)'), (
        ('kind', N_("cross (cross-attention), dec-self (a decoder's self-attention: a decoder-only model's one) or "
                    "enc-self (the small BERT's self-attention), as sinks_by_position.csv names them")),
        ('layer', N_('the layer, from 1')),
        ('key', N_('<eos> (also `[SEP]`), <bos> (also `[CLS]`) or punctuation')),
        ('weight_share', N_("mean share of the attention weight (heads' mean) on those keys, over the tokens whose "
                            "keys hold one; `no such key` where none does: the source of attnviz's own translators "
                            "has no end token, a decoder's prefix never holds <eos>")),
        ('norm_share', N_('the same for norm-based attention ‖Σ_h α_h f_h(x)‖ as a share of its sum over the keys')),
        ('tokens', N_('the tokens averaged (those whose keys hold such a token)')),
    )),
    (ATLAS_FIGURE_CSV, N_('one kind of attention\'s layer in one atlas figure (with `--format csv`: its numbers)'), (
        ('statistic', N_("the statistic shown (heads.csv's column of that name)")),
        ('kind', N_('enc-self, dec-self or cross')),
        ('layer \\ head', N_('the layer, from 1')),
        ('1, 2, …', N_("each head's value of the statistic")),
    )),
    (IMPORTANCE_FIGURE_CSV, N_('one head in an importance figure (its numbers)'), (
        ('series', N_('the kind of attention, in words')),
        ('head (layer.head; …)', N_("the head's place in heads.csv's order, from 1 (the figure's ticks name each "
                                    "layer's head 1 as layer.1)")),
        ('importance E|∂L/∂ξ| / normalised importance', N_("the head's `importance` or `importance_normalised`")),
    )),
    (PRUNING_FIGURE_CSV, N_("one point of the pruning curves (pruning.csv's BLEU, as plotted)"), (
        ('series', N_('least important first, or the random orders\' mean')),
        ('heads switched off (…)', N_('how many heads are off')),
        ('BLEU', N_('corpus BLEU, 0–100')),
    )),
    (TAU_FIGURE_CSV, N_('one bin of the histogram of Kendall τ of methods A and B over the tokens'), (
        ('series', N_('always `tokens`')),
        ('Kendall τ', N_("the bin's centre (bins of 0.1 from −1 to 1)")),
        ('tokens', N_('the tokens (an image model: the images) whose τ falls in the bin')),
    )),
    (LAYERS_FIGURE_CSV, N_('one method and one layer of the per-layer curves against REFERENCE (layers.csv, as '
                           'plotted)'), (
        ('series', N_('the attention-based method, in words')),
        ('layer of the attention explained (…)', N_('the layer, from 1')),
        ('mean Spearman ρ over the tokens', N_("layers.csv's `spearman_mean` (`nan` where it has no number)")),
    )),
    (IMAGE_HEADS_CSV, N_("one attention head of an image model over a folder of images (means over every image)"), (
        ('layer', N_('the layer, from 1 (nearest the input)')),
        ('head', N_('the head within the layer, from 1')),
        ('entropy', N_('mean entropy of a row, −Σ w ln w, in nats, over every query ([CLS] and the patches)')),
        ('cls_share', N_("mean weight a patch's query puts on [CLS]")),
        ('other_specials_share', N_("mean weight a patch's query puts on the other positions without a place on the "
                                    "image: a distillation token, register tokens (0 for a model with only [CLS])")),
        ('mean_distance_px', N_("mean attention distance in pixels of the model's input: for a patch's query, the "
                                'distance between its centre and each patch\'s centre weighted by the attention, '
                                'renormalised over the patches ([CLS] and the other special positions have no '
                                'place on the image); the mean over every patch query (Dosovitskiy et al. 2021, '
                                'Figure 7)')),
    )),
    (SINKS_BY_POSITION_CSV, N_("one head, one bin of query positions and one class of keys (attention sinks, "
                               "StreamingLLM; Kobayashi et al. 2020's norm view)"), (
        ('kind', N_("dec-self (a decoder's self-attention: a decoder-only model's one), enc-self (an encoder-only "
                    "model's, or a translation model's encoder) or cross (a translation model's cross-attention)")),
        ('layer', N_('the layer, from 1 (nearest the input)')),
        ('head', N_('the head within the layer, from 1')),
        ('queries', N_("the bin of the query's position, counted from 1: 1-16, 17-128, 129-1024 or 1025-4096 "
                       "(`attnviz heads` over decoded sentences: the source position for enc-self, the target "
                       "position for cross and a translation's dec-self, the place in prompt + answer for a "
                       "decoder-only model; `attnviz explain`: the explained step's query, the masked position for "
                       "a BERT)")),
        ('key', N_("`first` (the first position, whatever token it holds) or a special token of the tokenizer "
                   "(`[CLS]`, `[SEP]`, `<|endoftext|>`, `<s>` …; attnviz's own models and `attnviz explain`: "
                   "`<bos>`, `<eos>`, `<pad>`, `<unk>`, `[CLS]`, `[SEP]`); a class no query of the bin could see "
                   "(a causal row sees the keys up to its own position) has no row")),
        ('rows', N_('the query rows averaged: those of the bin that could see such a key, over every document or '
                    'decoded sentence (`attnviz explain`: one row per explained step)')),
        ('weight_share', N_("mean share of the row's attention weight on those keys, Σ_{j∈keys} α_ij")),
        ('norm_share', N_('the same share of the norm view: Σ_{j∈keys} α_ij ‖f_h(x_j)‖ / Σ_j α_ij ‖f_h(x_j)‖, f_h '
                          "the value through the head's part of the output projection; `n/a` where attnviz does not "
                          "know the model's output projection")),
    )),
    (SINKS_FIGURE_CSV, N_("one layer in a sinks figure (its numbers, --format csv): the share on the first position"
                          ), (
        ('share', N_('weight (the attention weights) or norm (the norm view)')),
        ('queries', N_("the bin of the query's position")),
        ('layer \\ head', N_('the layer, from 1')),
        ('1, 2, …', N_("each head's share on the first position (sinks_by_position.csv's `first` rows)")),
    )),
    (SINKS_KIND_FIGURE_CSV, N_("one layer in one kind's sinks figure (`attnviz heads` over decoded sentences, "
                               "--format csv; KIND: enc-self, dec-self or cross): the share on the first position"), (
        ('share', N_('weight (the attention weights) or norm (the norm view)')),
        ('queries', N_("the bin of the query's position")),
        ('layer \\ head', N_('the layer, from 1')),
        ('1, 2, …', N_("each head's share on the first position (sinks_by_position.csv's `first` rows of the kind)")),
    )),
    (PATCHING_CSV, N_('one attention head, its shares averaged over the pairs (a pair whose clean and corrupt logit '
                      'differences are within 0.001 moves nothing and is left out; `n/a`: no pair left; `not '
                      'computed`: a measure --measures left out)'), (
        ('kind', N_("enc-self (encoder self-attention), dec-self (decoder self-attention; a decoder-only model's "
                    'one self-attention) or cross (cross-attention)')),
        ('layer', N_('the layer, from 1 (nearest the input)')),
        ('head', N_('the head within the layer, from 1')),
        *((name, text) for measure, meaning in _MEASURE_COLUMNS for name, text in (
            (measure, meaning), (f'{measure}_low', N_('the 2.5th percentile of the mean over 1,000 bootstrap '
                                                      'resamples of the pairs')),
            (f'{measure}_high', N_('the 97.5th percentile of the same resampled means')))),
        ('entropy', N_("the head's mean attention entropy in the corrupt run, −Σ w ln w over a row, in nats (near 0: "
                       'a saturated softmax, where attribution patching fails)')),
    )),
    (PAIRS_CSV, N_('one pair and one head (`not computed`: a measure --measures left out)'), (
        ('pair', N_('the pair, from 1, in the order patched')),
        ('line', N_("the pair's line in --pairs (`generated` for --task)")),
        ('clean', N_('the clean input')),
        ('corrupt', N_('the corrupt input')),
        ('answer', N_('the token whose logit the metric adds')),
        ('alternative', N_('the token whose logit the metric subtracts')),
        ('prefix', N_("a translation model's target tokens fed to both runs before the step read (`none`: the first "
                      'step; always `none` for other models)')),
        ('clean_metric', N_('m_clean: logit(answer) − logit(alternative) on the clean input')),
        ('corrupt_metric', N_('m_corrupt: the same on the corrupt input')),
        ('kind', N_('the kind, as in patching.csv')),
        ('layer', N_('the layer, from 1')),
        ('head', N_('the head, from 1')),
        *_MEASURE_COLUMNS,
        ('entropy', N_("the head's mean attention entropy in this pair's corrupt run (nats)")),
    )),
    (DISAGREEMENTS_CSV, N_('a head where attribution patching and patching (denoise) differ by more than 0.1 of the '
                           'logit difference, the largest difference first (written when --measures holds both atp '
                           'and denoise)'), (
        ('kind', N_('the kind, as in patching.csv')),
        ('layer', N_('the layer, from 1')),
        ('head', N_('the head, from 1')),
        ('denoise', N_("the head's mean share restored by patching")),
        ('atp', N_("attribution patching's mean estimate of it")),
        ('difference', N_('atp − denoise')),
        ('entropy', N_("the head's mean attention entropy (nats)")),
    )),
    (RESIDUAL_CSV, N_('one pair, one layer and one input position of the residual stream (written when --measures '
                      'holds residual)'), (
        ('pair', N_('the pair, from 1, as in pairs.csv')),
        ('layer', N_("the block, from 1, whose output is patched (a Transformer's encoder; the one stack of the "
                     'other models)')),
        ('position', N_('the input position, from 1')),
        ('token', N_('the clean input token at that position')),
        ('denoise', N_("the share of the logit difference restored when that block's output at that position comes "
                       'from the clean run into the corrupt one')),
    )),
    (DISTANCES_CSV, N_('one layer of an image model (its heads averaged)'), (
        ('layer', N_('the layer, from 1 (nearest the input)')),
        ('mean_distance_px', N_("the mean of its heads' `mean_distance_px` (image_heads.csv)")),
    )),
)


def counted_in(count: str) -> dict[str, list[str]]:
    """agreement.csv's and layers.csv's columns where their count is ``count`` ("tokens"; an image model's run:
    "images"), for :func:`columns_file`'s ``present``."""
    other = "images" if count == "tokens" else "tokens"
    return {name: [c for c in described(name) if c != other] for name in (AGREEMENT_CSV, LAYERS_CSV)}


def described(name: str) -> tuple[str, ...]:
    """The columns described for file ``name``, in order."""
    return next(tuple(c for c, _ in columns) for file, _, columns in COLUMNS if file == name)


def columns_markdown(files: tuple[str, ...], translated: bool = False,
                     present: Mapping[str, Sequence[str]] | None = None) -> str:
    """The Markdown description of ``files`` (a heading and a table for each): COLUMNS.md's text, in the interface's
    language when ``translated`` (the user guide's tables: in English). present: for a file named there, the columns
    it has (only those are described: ``heads --documents``' heads.csv has no `rare`, `diagonal` …)."""
    say = tr if translated else (lambda text: text)
    parts = []
    for file, row, columns in COLUMNS:
        if file not in files:
            continue
        if present is not None and file in present:
            columns = tuple((name, text) for name, text in columns if name in present[file])
        lines = [f"### {file}", "", say(ONE_ROW).format(row=say(row)), "",
                 f"| {say(COLUMN)} | {say(MEANING)} |", "| --- | --- |"]
        lines += [f"| `{_cell(name)}` | {_cell(say(text))} |" for name, text in columns]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _cell(text: str) -> str:
    """A Markdown table cell: its | escaped (GitHub ends a cell at every unescaped |, in code spans too)."""
    return text.replace("|", "\\|")


def columns_file(files: tuple[str, ...], command: str, present: Mapping[str, Sequence[str]] | None = None) -> str:
    """COLUMNS.md for the files of ``command`` (``attnviz heads`` / ``attnviz explain``), in the interface's
    language; present: as :func:`columns_markdown`'s."""
    return (tr("# The columns of `{command}`'s files").format(command=command) + "\n\n"
            + tr("No cell is empty: a value that does not exist says why (`n/a`, `none`, `no such key`, `no token "
                 "with an order`; each column says when).") + "\n\n"
            + columns_markdown(files, translated=True, present=present))
