"""transformers behind one fence (attnviz/core/hf/compat.py): no other module of attnviz names a private or internal
name of the library; a release outside the tested range, or one lacking a name attnviz needs, is one sentence —
the loader's refusal, ``attnviz translate``'s one line, the window's message — and where a name goes missing after
a model is open, its use says that sentence instead of raising an AttributeError. And the per-architecture
knowledge the code reads instead of probing modules (the Architecture record) finds each model's own modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
import torch  # noqa: E402

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from attnviz.core.hf import compat  # noqa: E402
from attnviz.core.hf.folder import ARCHITECTURES  # noqa: E402
from tests.helpers import WAIT_MS, run_cli  # noqa: E402
from tests.hf_folders import ENCODER_DECODER, FAMILIES, TEXT, make_folder  # noqa: E402

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS

PACKAGE = Path(__file__).resolve().parent.parent / "attnviz"
FENCE = PACKAGE / "core" / "hf" / "compat.py"
PUBLIC_MODULES = ("transformers", "transformers.modeling_outputs")  # what the rest of attnviz may import


def trespasses(path: Path) -> list[str]:
    """Where ``path`` imports an internal transformers module or a private name of it, or uses one of the private
    names compat.py keeps (as an attribute, a keyword, a name, or a string handed to a call or a subscript: getattr,
    import_module, a hook's kwargs)."""
    private = set(compat.PRIVATE_NAMES)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{where} imports {a.name}" for a in node.names
                      if a.name.startswith("transformers.") and a.name not in PUBLIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "transformers":
            if node.module not in PUBLIC_MODULES:
                found.append(f"{where} imports from {node.module}")
            found += [f"{where} imports {a.name}" for a in node.names if a.name.startswith("_") or a.name in private]
        elif isinstance(node, ast.Attribute) and node.attr in private:
            found.append(f"{where} uses .{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg in private:
            found.append(f"{where} passes {node.arg}=")
        elif isinstance(node, ast.Name) and node.id in private:
            found.append(f"{where} names {node.id}")
        elif isinstance(node, ast.Call | ast.Subscript):  # getattr(x, "name"), import_module("…"), kwargs["name"]
            strings = node.args if isinstance(node, ast.Call) else [node.slice]
            found += [f"{where} reads {text.value!r}" for text in strings
                      if isinstance(text, ast.Constant) and isinstance(text.value, str)
                      and private & set(text.value.split("."))]
    return found


def test_no_module_but_compat_touches_a_private_transformers_name():
    sources = sorted(p for p in PACKAGE.rglob("*.py") if p != FENCE)
    assert len(sources) > 50
    broken = [line for path in sources for line in trespasses(path)]
    assert not broken, "\n".join(broken)
    fence = FENCE.read_text(encoding="utf-8")
    assert all(name in fence for name in compat.PRIVATE_NAMES)  # (the list names what the fence really uses)
    assert trespasses(FENCE)  # (and the check sees them there)


def test_the_check_catches_each_way_of_trespassing(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import importlib\n"
                      "from transformers.cache_utils import DynamicCache\n"
                      "import transformers.masking_utils\n"
                      "from transformers import _private\n"
                      "processors = model._get_logits_processor(config)\n"
                      "cache = DynamicCache(ddp_cache_data=kv)\n"
                      "ends = getattr(config, '_eos_token_tensor')\n"
                      "module = importlib.import_module('transformers.models.t5.modeling_t5')\n"
                      "angles = kwargs['position_embeddings']\n")
    assert sorted(line.split(" ", 1)[1] for line in trespasses(sample)) == sorted([
        "imports from transformers.cache_utils", "imports transformers.masking_utils", "imports _private",
        "uses ._get_logits_processor", "passes ddp_cache_data=", "reads '_eos_token_tensor'",
        "reads 'transformers.models.t5.modeling_t5'", "reads 'position_embeddings'"])


def test_importing_the_fence_imports_no_transformers():
    code = "import sys, attnviz.core.hf.compat; assert 'transformers' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PACKAGE.parent)


def test_the_installed_release_is_supported():
    from packaging.version import Version

    assert Version(compat.TESTED[0]) <= Version(transformers.__version__) <= Version(compat.TESTED[-1])
    assert compat.unsupported() == ""


@pytest.fixture(scope="module")
def marian(tmp_path_factory) -> Path:
    return make_folder("marian", tmp_path_factory.mktemp("compat") / "marian")


def _fake_release(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    """transformers says it is ``version`` (the module as it is now: building some models replaces the package's
    entry in sys.modules with a new lazy module)."""
    monkeypatch.setattr(sys.modules["transformers"], "__version__", version)


def _one_sentence(text: str) -> None:
    assert text and "\n" not in text and ". " not in text, text


@pytest.mark.parametrize("version", ["99.0.0", "4.57.1", "5.24.0.dev0", "not a version"])
def test_a_release_outside_the_tested_range_is_one_sentence_where_a_folder_opens(marian, capsys, monkeypatch, version):
    _fake_release(monkeypatch, version)
    sentence = compat.unsupported()
    _one_sentence(sentence)
    assert sentence == (f"transformers {version} is installed, but attnviz is tested with transformers "
                        f"{compat.TESTED[0]} only: opening Hugging Face models is unsupported with it")
    with pytest.raises(CheckpointError) as error:
        load_checkpoint(marian)
    assert str(error.value) == f"{marian}: {sentence}"
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(marian), "--text", TEXT)
    assert (code, out) == (2, "") and err == f"attnviz: error: {marian}: {sentence}\n", err


def test_the_window_shows_the_sentence_and_keeps_its_model(window, errors, marian, monkeypatch, qtbot):
    before = window.session.state.model
    _fake_release(monkeypatch, "99.0.0")
    window.load(marian)
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert "transformers 99.0.0 is installed, but attnviz is tested with transformers" in errors[-1]
    assert "\n" not in errors[-1]
    state = window.session.state
    assert state.loading == "" and state.model is before


def test_a_missing_private_name_is_one_sentence_where_a_folder_opens(marian, monkeypatch):
    from transformers.generation.utils import GenerationMixin

    monkeypatch.delattr(GenerationMixin, "_get_logits_processor")
    sentence = compat.unsupported()
    _one_sentence(sentence)
    assert sentence.startswith(f"transformers {transformers.__version__} has no GenerationMixin._get_logits_processor, "
                               "which attnviz needs for decoding as generate does: opening Hugging Face models is "
                               "unsupported with it")
    with pytest.raises(CheckpointError, match=r"has no GenerationMixin\._get_logits_processor"):
        load_checkpoint(marian)


def _decode(loaded) -> None:
    src, valid = torch.tensor([[5, 6, 1]]), torch.tensor([3])
    loaded.model.search_rules(src, valid, 4, 1)
    state, _ = loaded.model.start(src, valid)
    loaded.model.step(torch.tensor([loaded.tgt_vocab.bos_id]), state)


def test_a_name_gone_after_the_model_opened_is_the_sentence_not_an_attribute_error(marian, tmp_path, monkeypatch):
    from transformers import GenerationConfig, cache_utils
    from transformers.generation.utils import GenerationMixin
    from transformers.models.t5.modeling_t5 import T5Attention

    from attnviz.core.hf.positional import describe_positions

    loaded = load_checkpoint(marian)
    _decode(loaded)  # (works as opened)
    with monkeypatch.context() as patched:
        patched.delattr(GenerationMixin, "_prepare_generation_config")
        with pytest.raises(compat.UnsupportedTransformers, match=r"no GenerationMixin\._prepare_generation_config, "):
            _decode(loaded)
    with pytest.raises(compat.UnsupportedTransformers, match=r"has no GenerationConfig\._eos_token_tensor, "):
        compat.end_ids(GenerationConfig())  # (a config _prepare_special_tokens did not prepare)
    with monkeypatch.context() as patched:
        class OlderCache(cache_utils.DynamicCache):
            def __init__(self):
                super().__init__()

        patched.setattr(cache_utils, "DynamicCache", OlderCache)
        with pytest.raises(compat.UnsupportedTransformers, match=r"has no DynamicCache\(ddp_cache_data=…\), "):
            _decode(loaded)
    _decode(loaded)  # (and works again)
    t5 = load_checkpoint(make_folder("t5", tmp_path / "t5"))
    with monkeypatch.context() as patched:
        patched.delattr(T5Attention, "_relative_position_bucket")
        with pytest.raises(compat.UnsupportedTransformers) as error:
            describe_positions(t5.model.hf, "T5")
    _one_sentence(str(error.value))
    assert "has no T5Attention._relative_position_bucket, which attnviz needs for T5's relative position bias" in \
        str(error.value)


# The Architecture record (attnviz/core/hf/folder.py) says where a model's attention modules and positions are: it
# finds the very modules and tables the code used to find by probing the modules' attributes.

def _probed_modules(family: str, hf) -> dict:
    """Each kind's modules where they are in transformers' classes (written out by hand)."""
    if family == "t5":
        return {ENC: [b.layer[0].SelfAttention for b in hf.encoder.block],
                DEC: [b.layer[0].SelfAttention for b in hf.decoder.block],
                CROSS: [b.layer[1].EncDecAttention for b in hf.decoder.block]}
    if family in ENCODER_DECODER:
        return {ENC: [layer.self_attn for layer in hf.model.encoder.layers],
                DEC: [layer.self_attn for layer in hf.model.decoder.layers],
                CROSS: [layer.encoder_attn for layer in hf.model.decoder.layers]}
    causal = [block.attn for block in hf.transformer.h] if family == "gpt2" else [
        layer.self_attn for layer in hf.model.layers]
    return {ENC: causal, DEC: causal, CROSS: causal}


@pytest.mark.parametrize("family", FAMILIES)
def test_the_record_finds_the_models_own_attention_modules_and_positions(family, tmp_path):
    from attnviz.core.hf.positional import MAX_POSITIONS_DRAWN, describe_positions

    loaded = load_checkpoint(make_folder(family, tmp_path / family))
    hf, record = loaded.model.hf, loaded.model.architecture
    assert record is ARCHITECTURES[family]
    for kind, modules in _probed_modules(family, hf).items():
        assert [id(m) for m in loaded.model.attention_modules(kind)] == [id(m) for m in modules], kind
    described = describe_positions(hf, record.name)
    table = {"marian": lambda: hf.model.encoder.embed_positions.weight,
             "bart": lambda: hf.model.encoder.embed_positions.weight[2:],  # (BART's two unused rows first)
             "mbart": lambda: hf.model.encoder.embed_positions.weight[2:],
             "gpt2": lambda: hf.transformer.wpe.weight}.get(family)
    if table is not None:
        assert described.kind == ("sinusoidal" if family == "marian" else "learned")
        expected = table().detach().numpy()[:MAX_POSITIONS_DRAWN]
        assert described.table is not None and np.array_equal(described.table, expected)
    elif family == "t5":
        assert described.kind == "relative bias" and described.table.shape[1] == hf.config.num_heads
    else:
        assert described.kind == "rotary (RoPE)"
        assert np.array_equal(described.rope_frequencies, hf.model.rotary_emb.inv_freq.numpy().astype(np.float32))
