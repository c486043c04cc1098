"""Today's architectures (Qwen3, Qwen3-MoE, Gemma 2, Gemma 3, Mistral, Mixtral, Phi-3, OLMo 2, SmolLM3, gpt-oss,
ModernBERT) computed by attnviz exactly as the library computes them, every attention twist switched on: sliding
windows shorter than the input, soft-capping that bites, QK-norm, learned sinks, layers without RoPE (tiny random
models from tests/hf_modern_folders.py; nothing is downloaded).

Per model type: greedy and beam tokens equal ``generate``'s; every map of the prompt and of every step equals eager
``output_attentions`` of the whole sequence to 1e-5 (past the window included); teacher-forced logits equal the
library's forward to 1e-4; maps on demand equal eager; gpt-oss's rows sum to 1 − p_sink with the sink's weight
recorded beside them; each layer names what it does. The README's model-type table lists these checks.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.decoding.beam_search import BeamSearch  # noqa: E402
from attnviz.core.hf.folder import ARCHITECTURES  # noqa: E402
from attnviz.core.hf.variants import layer_variants  # noqa: E402
from tests.helpers import run_cli  # noqa: E402
from tests.hf_modern_folders import DECODER_ONLY, WINDOW, make_modern_folder, modern_model  # noqa: E402

PAD, EOS, STEPS = 0, 2, 6
SOURCES = torch.tensor([[5, 6, 7, 8, 9, 10, 11, 3], [9, 6, 3, 7, 0, 0, 0, 0]])  # 8 > the window of 3
VALID = torch.tensor([8, 4])


def _search(model, beams: int = 1, record: bool = True) -> BeamSearch:
    from attnviz.core.hf.causal import HFCausal

    adapter = HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    search = BeamSearch(adapter, SOURCES, VALID, bos_id=EOS, eos_id=EOS, beam_size=beams, max_len=STEPS,
                        record_attention=record, banned=[])
    search.run()
    return search


def _generated(model, beams: int) -> list[list[int]]:
    from attnviz.core.hf.generation import left_padded

    ids, mask = left_padded(SOURCES, VALID, PAD)
    with torch.no_grad():
        out = model.generate(ids, attention_mask=mask, max_new_tokens=STEPS, num_beams=beams, do_sample=False,
                             pad_token_id=PAD, eos_token_id=EOS)
    rows = []
    for row in range(len(SOURCES)):
        new = out[row, ids.shape[1]:].tolist()
        rows.append(new[: new.index(EOS) + 1] if EOS in new else new)
    return rows


@pytest.mark.parametrize("family", DECODER_ONLY)
def test_greedy_tokens_and_every_map_equal_the_library(family):
    """Greedy tokens equal generate's; the prompt's maps and each step's row equal eager output_attentions of the
    whole sequence (prompt and answer, read once, unpadded) — sliding-window layers past their window included."""
    model = modern_model(family)
    search = _search(model)
    library = _generated(model, 1)
    model.set_attn_implementation("eager")
    width = SOURCES.shape[1]
    for row in range(len(SOURCES)):
        ours = search.best(row)
        assert ours.ids == library[row], family
        real = int(VALID[row])
        sequence = torch.cat([SOURCES[row, :real], torch.tensor(ours.ids)])[None]
        with torch.no_grad():
            attentions = model(sequence, output_attentions=True).attentions
        for layer, weights in enumerate(attentions):
            prompt = search.encoder_attention.weights[row, layer, :, width - real:, width - real:]  # (left-padded)
            torch.testing.assert_close(prompt, weights[0, :, :real, :real], atol=1e-5, rtol=0)
        for step, recorded in enumerate(ours.rows):
            query = real - 1 + step
            for layer, weights in enumerate(attentions):
                mine = torch.from_numpy(recorded.self_weights[layer])  # (H, width + steps so far), left-padded
                mine = torch.cat([mine[:, width - real: width], mine[:, width:]], dim=-1)[:, : query + 1]
                torch.testing.assert_close(mine, weights[0, :, query, : query + 1], atol=1e-5, rtol=0)
    if ARCHITECTURES[family].modules and layer_variants(model.config, ARCHITECTURES[family])[0].window:
        # (the band: a query past the window gives the keys before it no weight)
        first = search.encoder_attention.weights[0, 0, :, -1]  # the prompt's last query, layer 0 (sliding)
        assert torch.all(first[:, : width - WINDOW] == 0) and torch.all(first[:, width - WINDOW:] > 0)


@pytest.mark.parametrize("family", DECODER_ONLY)
def test_beam_tokens_equal_generate(family):
    model = modern_model(family, seed=3)
    search = _search(model, beams=3, record=False)
    for row, library in enumerate(_generated(model, 3)):
        assert search.best(row).ids == library, family


@pytest.mark.parametrize("family", DECODER_ONLY)
def test_teacher_forced_logits_equal_the_librarys_forward(family):
    from attnviz.core.hf.causal import HFCausal

    model = modern_model(family, seed=1)
    adapter = HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    answers = torch.tensor([[EOS, 4, 5, 6], [EOS, 7, 8, 9]])
    with torch.no_grad():
        ours = adapter(SOURCES, VALID, answers)  # (B, 4, V)
        for row in range(len(SOURCES)):
            real = int(VALID[row])
            sequence = torch.cat([SOURCES[row, :real], answers[row, 1:]])[None]
            library = model(sequence).logits[0, real - 1:]  # (the prompt's last position, then each answer's)
            torch.testing.assert_close(ours[row], library, atol=1e-4, rtol=0)


@pytest.mark.parametrize("family", DECODER_ONLY)
def test_maps_on_demand_equal_eager_past_the_window(family):
    from attnviz.core.hf.causal import HFCausal

    model = modern_model(family, seed=2)
    adapter = HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    store = adapter.query_keys(SOURCES, VALID)
    model.set_attn_implementation("eager")
    for row in range(len(SOURCES)):
        real, width = int(VALID[row]), SOURCES.shape[1]
        with torch.no_grad():
            attentions = model(SOURCES[row: row + 1, :real], output_attentions=True).attentions
        for layer, weights in enumerate(attentions):
            for head in range(weights.shape[1]):
                got = store.map(layer, head, row=row, tile_rows=3)[width - real:, width - real:]
                np.testing.assert_allclose(got, weights[0, head].numpy(), atol=1e-5, rtol=0)


def test_gpt_oss_rows_sum_to_one_less_the_sink_and_the_sink_is_recorded():
    """A learned sink takes p_sink of each row: the real keys' weights sum to 1 − p_sink, p_sink recorded per head."""
    from attnviz.core.hf.attention import recording

    model = modern_model("gpt_oss")
    from attnviz.core.hf.causal import HFCausal

    HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    with torch.no_grad(), recording() as calls:
        model(SOURCES[:1])
    assert len(calls) == 4
    for call in calls:
        assert call.sink is not None and call.sink.shape == call.weights.shape[:-1]
        torch.testing.assert_close(call.weights.sum(-1) + call.sink, torch.ones_like(call.sink), atol=1e-6, rtol=0)
        assert float(call.sink.max()) > 0.05  # (the sinks bite: drawn from N(0, 1))


def test_gemma2_records_the_raw_and_the_capped_scores():
    from attnviz.core.hf.attention import recording
    from attnviz.core.hf.causal import HFCausal

    model = modern_model("gemma2")
    HFCausal(model, SimpleNamespace(max_src_len=64, max_tgt_len=STEPS), PAD)
    with torch.no_grad(), recording() as calls:
        model(SOURCES[:1])
    cap = model.config.attn_logit_softcapping
    for call in calls:
        assert call.raw_scores is not None
        visible = torch.isfinite(call.scores)
        expected = torch.tanh(call.raw_scores / cap) * cap
        torch.testing.assert_close(call.scores[visible], expected[visible], atol=1e-6, rtol=0)
        assert float(call.scores[visible].abs().max()) <= cap  # (capped)
        assert float(call.raw_scores.abs().max()) > cap  # (and the cap bit)


@pytest.mark.parametrize(("family", "titles"), [
    ("gemma2", ["sliding window 3", "", "sliding window 3", ""]),
    ("gemma3_text", ["sliding window 3"] * 3 + [""]),
    ("mistral", ["sliding window 3"] * 4),
    ("smollm3", ["", "no positions", "", "no positions"]),
    ("qwen3", [""] * 2 + ["sliding window 3"] * 2),
    ("olmo2", [""] * 4),
    ("modernbert", ["", "bidirectional window ±3", "bidirectional window ±3", "", "bidirectional window ±3",
                    "bidirectional window ±3"]),
])
def test_each_layer_names_what_it_does(family, titles):
    model = modern_model(family)
    variants = layer_variants(model.config, ARCHITECTURES[family])
    assert [v.title() for v in variants] == titles
    if family == "gemma3_text":  # local RoPE base 10k, global 1M
        assert [v.rotary_base for v in variants] == [10000.0] * 3 + [1000000.0]
        assert all(v.qk_norm == "head" for v in variants)


def test_modernbert_maps_equal_eager_and_its_local_layers_are_bidirectional_bands(tmp_path):
    """ModernBERT: every map (full and local layers) equals eager output_attentions, on demand too; a local layer
    reads |i − j| ≤ 3 on both sides."""
    from attnviz.core.hf.encoder import HFEncoder

    model = modern_model("modernbert", vocab_size=60, bos=2, eos=3, pad=0)
    encoder = HFEncoder(model, SimpleNamespace())
    ids = torch.tensor([[2, 10, 11, 12, 13, 14, 15, 16, 17, 3]])
    reading = encoder.read(ids, None, 4)
    store = encoder.query_keys(ids, torch.tensor([ids.shape[1]]))
    model.set_attn_implementation("eager")
    with torch.no_grad():
        library = model(ids, output_attentions=True)
    assert reading.logits is not None
    torch.testing.assert_close(reading.logits[0], library.logits[0, 4], atol=1e-4, rtol=0)
    for layer, weights in enumerate(library.attentions):
        torch.testing.assert_close(reading.weights[0, layer], weights[0], atol=1e-5, rtol=0)
        for head in range(weights.shape[1]):
            np.testing.assert_allclose(store.map(layer, head), weights[0, head].numpy(), atol=1e-5, rtol=0)
    distance = (torch.arange(10)[:, None] - torch.arange(10)[None, :]).abs()
    local = reading.weights[0, 1, 0]  # layer 1: local
    assert torch.all(local[distance > WINDOW] == 0) and torch.all(local[distance <= WINDOW] > 0)
    assert torch.all(reading.weights[0, 0, 0] > 0)  # layer 0: global


@pytest.mark.parametrize("family", ["gemma3_text", "gpt_oss"])
def test_a_folder_of_each_type_opens_and_decodes_from_the_command_line(family, tmp_path, capsys):
    folder = make_modern_folder(family, tmp_path / family)
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", "the house is big")
    assert code == 0, err
    assert out.strip()


def test_modernbert_fills_a_mask_from_the_command_line(tmp_path, capsys):
    folder = make_modern_folder("modernbert", tmp_path / "modernbert")
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(folder), "--text", "the [MASK] is big .")
    assert code == 0, err
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.ModernBertForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    inputs = tokenizer("the [MASK] is big .", return_tensors="pt")
    with torch.no_grad():
        logits = model(**inputs).logits[0, int((inputs["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0, 0])]
    logits[tokenizer.all_special_ids] = float("-inf")  # (a mask is never filled with a special token)
    best = tokenizer.convert_ids_to_tokens(int(logits.argmax()))
    shown = "·" + best[2:] if best.startswith("##") else best  # (a continuation piece, as attnviz shows it)
    assert out.strip().split("\t")[0] == shown  # the library's own best word fills the mask


def test_a_gemma3_image_text_folder_is_refused_in_one_sentence_naming_what_opens(tmp_path):
    import json

    from attnviz.core.hf.folder import HFFolderError, inspect_folder

    folder = make_modern_folder("gemma3_text", tmp_path / "gemma3")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "gemma3"}))
    with pytest.raises(HFFolderError) as refused:
        inspect_folder(folder)
    assert "\n" not in str(refused.value) and "'gemma3_text'" in str(refused.value)
    assert "image–text" in str(refused.value)


@pytest.fixture(scope="module", params=DECODER_ONLY)
def modern_decoded(request, tmp_path_factory):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession

    folder = make_modern_folder(request.param, tmp_path_factory.mktemp("modern") / request.param, seed=3)
    loaded = load_checkpoint(folder)
    session = DecodeSession(loaded, "cpu")
    source = session.encode("the house is big and the houses are big .")  # (longer than the window)
    step = session.step()
    for _ in range(2):
        if not session.finished:
            step = session.step()
    return request.param, loaded, source, step


@pytest.mark.parametrize("kind", ["enc-self", "dec-self"])
def test_the_computation_dock_recomputes_each_twist_to_the_models_own_weights(modern_decoded, kind):
    """The Computation chain of one query, by hand: QK-norm, RoPE with the layer's base (none in a NoPE layer),
    soft-capped scores, the window's band, the sink — its weights equal the model's row to 1e-5."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.decoding.query_computation import compute_query

    family, loaded, source, step = modern_decoded
    kind = AttentionKind.ENCODER_SELF if kind == "enc-self" else AttentionKind.DECODER_SELF
    queries = len(source.tokens) if kind is AttentionKind.ENCODER_SELF else len(step.query_tokens)
    for query in {0, queries - 1}:
        for layer in range(4):
            for head in (0, 3):
                comp = compute_query(loaded, source.tokens, step.query_tokens, kind, layer, head, query,
                                     source_ids=source.ids)
                np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5, err_msg=family)
    last = compute_query(loaded, source.tokens, step.query_tokens, AttentionKind.ENCODER_SELF, 0, 0,
                         len(source.tokens) - 1, source_ids=source.ids)
    if family in ("qwen3", "gemma3_text", "olmo2"):
        assert "RMSNorm(W_q a" in last.formulas.query
    if family in ("qwen3", "gemma3_text"):  # (QK-norm, RoPE, 4 query heads over 2 key/value heads: the note last)
        assert last.formulas.key == "k_j = RoPE_j(RMSNorm(W_k a_j)) (key/value head 1 of 2, shared by 2 query heads)"
    if family == "gemma2":
        assert "tanh" in last.formulas.score
    if family == "gpt_oss":
        assert "sink" in last.formulas.weights and last.weights.sum() < 1 - 1e-3
    if family in ("gemma2", "gemma3_text", "mistral", "gpt_oss"):  # layer 0 slides: 3 keys visible at the end
        assert last.visible.sum() == WINDOW and "window" in last.formulas.weights
    if family == "smollm3":
        second = compute_query(loaded, source.tokens, step.query_tokens, AttentionKind.ENCODER_SELF, 1, 0, 2,
                               source_ids=source.ids)
        assert "no RoPE" in second.formulas.query


@pytest.fixture(scope="module")
def gpt_oss_decoded(tmp_path_factory):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession

    folder = make_modern_folder("gpt_oss", tmp_path_factory.mktemp("oss") / "gpt_oss", seed=4)
    loaded = load_checkpoint(folder)
    session = DecodeSession(loaded, "cpu")
    source = session.encode("the house is big and the houses are big .")
    return loaded, source, session.step()


def test_a_learned_sink_is_a_column_of_its_own_and_every_row_sums_to_one(gpt_oss_decoded):
    """gpt-oss's maps carry p_sink after the keys: each real row sums to 1, and the column is the weight the
    softmax gave the sink (recorded from its own column, not from the row's sum)."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.hf.attention import recording
    from attnviz.figures.attention import SINK_COLUMN, select

    loaded, source, step = gpt_oss_decoded
    assert source.learned_sink and loaded.learned_sink
    view = select(AttentionKind.ENCODER_SELF, 1, 2, source, step)
    assert view.cols[-1] == SINK_COLUMN and view.values.shape[1] == len(source.tokens) + 1
    np.testing.assert_allclose(view.values.sum(-1), 1.0, atol=1e-5)
    hf = loaded.model.hf
    ids = torch.tensor([source.ids])
    with torch.no_grad(), recording() as calls:
        hf(ids)
    np.testing.assert_allclose(view.values[:, -1], calls[1].sink[0, 2].numpy(), atol=1e-5)
    assert "sliding window" not in view.title() and "global" in view.title()  # (layer 2 of 4: full)
    assert "sliding window 3" in select(AttentionKind.ENCODER_SELF, 0, 0, source, step).title()


def test_the_source_views_sink_column_is_the_sinks_weight_not_the_rest_of_the_prompts_share(gpt_oss_decoded):
    """The source view shows the prompt's columns of the answer's rows (a row sums to the prompt's share): its sink
    column is the weight the softmax gave the sink, the same as the whole sequence's map gives that row — not
    1 − the prompt's share, which would hide the answer's share in the sink."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.decoding.stepping import DecodeSession
    from attnviz.figures.attention import SINK_COLUMN, select

    session = DecodeSession(gpt_oss_decoded[0], "cpu")
    source = session.encode("the house is big and the houses are big .")
    for _ in range(3):  # (answer rows after the first read the answer too)
        step = session.step()
    assert len(step.query_tokens) == 3
    for layer in range(4):
        view = select(AttentionKind.CROSS, layer, 1, source, step)
        whole = select(AttentionKind.DECODER_SELF, layer, 1, source, step)
        answer_rows = view.values.shape[0]
        assert view.cols[-1] == SINK_COLUMN
        np.testing.assert_allclose(view.values[:, -1], whole.values[-answer_rows:, -1], atol=1e-6)
        assert np.all(view.values[1:].sum(-1) < 1 - 1e-3)  # (the answer's share is in neither column)


def test_sinks_by_position_gives_the_learned_sinks_share_beside_the_first_tokens(gpt_oss_decoded):
    from attnviz.core.heads.sinks import FIRST, LEARNED_SINK, SinkSums, key_classes, position_bin
    from attnviz.core.hf.attention import recording

    loaded, source, _step = gpt_oss_decoded
    ids = torch.tensor([source.ids])
    with torch.no_grad(), recording() as calls:
        loaded.model.hf(ids)
    sums = SinkSums.empty((FIRST, LEARNED_SINK), len(calls), calls[0].weights.shape[1])
    positions = np.arange(len(source.ids))
    for layer, call in enumerate(calls):
        sums.add(layer, call.weights[0].numpy(), None, positions, key_classes(source.tokens, (LEARNED_SINK,)), True)
    weight, _ = sums.means()
    first_bin = position_bin(positions) == 0
    for layer, call in enumerate(calls):
        expected = call.sink[0][:, first_bin].double().mean(-1).numpy()  # (H,)
        np.testing.assert_allclose(weight[1, 0, layer], expected, atol=1e-6)


def test_the_masks_dock_draws_the_layer_on_shows_own_mask(modern_decoded):
    """A sliding-window layer's mask is a band, named in the title; a global layer's the plain causal triangle."""
    from attnviz.figures.panels import causal_mask_figure

    family, _loaded, source, step = modern_decoded
    if family not in ("gemma3_text", "gemma2", "mistral"):
        pytest.skip("(the band is checked on three of the window families)")
    band = causal_mask_figure(source, step, 0)
    assert "sliding window 3" in band.title
    allowed = band.values > 0.5
    assert allowed.sum(-1).max() == WINDOW  # (no row reads more than the window)
    last = len(source.tokens) - 1 if family != "mistral" else None
    full = causal_mask_figure(source, step, 3)
    if last is not None:
        assert "global" in full.title and (full.values > 0.5).sum(-1).max() > WINDOW
