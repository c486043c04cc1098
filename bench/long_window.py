"""A 4,096-token prompt in the window (issue 49 §1): a decoder-only Hugging Face folder's prompt beyond the decoding
cap opens with its maps on demand; the time from an Attention-view change (layer, head) to the painted map, and a
screenshot of the window at 1280×800.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/long_window.py [--tokens 4096] [--shot PATH] [--real-size]

The folder: a small random Llama (hidden 64, 2 layers, 4 query heads over 2 key/value heads, 4,096 positions),
built into a temporary folder (no download): the time is the window's (the map computed from the kept queries and
keys, coloured, laid out and painted), not a large model's forward pass (bench/long_maps.py times that). With
--shot, a second screenshot (``…-zoomed.png``) after 20 wheel notches around a cell near the diagonal.

With --real-size the folder is bench/long_maps.py's 246 M-parameter Llama shape (984 MB of float32 weights), built
in a separate process so that this one's peak resident memory (VmHWM, printed) is the window's alone: the window,
Qt, torch and transformers, the model, its forward pass over the prompt and the maps on show. The issue's bound is
the model's own size + 2 GB.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--shot", default="", help="save a screenshot of the window here (PNG)")
    parser.add_argument("--quick", action="store_true", help="600 tokens: a smoke run, no figure to read")
    parser.add_argument("--real-size", action="store_true",
                        help="the 246 M Llama shape of bench/long_maps.py instead of a tiny one; prints peak memory")
    args = parser.parse_args()
    if args.quick:
        args.tokens = 600

    import torch
    import transformers
    from PySide6 import QtCore, QtGui, QtWidgets

    from attnviz.core.attention.kind import AttentionKind
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner
    from tests.hf_folders import _byte_level_tokenizer

    torch.set_num_threads(2)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "llama-4k"
        tokenizer = _byte_level_tokenizer()
        if args.real_size:
            _make_real_size(folder, args.tokens)
            model_mb = sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 1024**2
        else:
            torch.manual_seed(0)
            transformers.LlamaForCausalLM(transformers.LlamaConfig(
                vocab_size=len(tokenizer), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, intermediate_size=128, max_position_embeddings=args.tokens, bos_token_id=0,
                eos_token_id=0, pad_token_id=0)).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        window = MainWindow(Settings(Path(tmp) / "settings.ini"), InlineRunner())
        window.resize(1280, 800)
        window.show()
        window.load(folder)
        text = " ".join(["the house is big . i am at home . he was there ."] * (args.tokens // 15))
        started = time.perf_counter()
        window.set_sentence(text, run=True)
        app.processEvents()
        window.grab()
        opened = time.perf_counter() - started
        source = window.session.state.source
        print("| tokens | maps on demand | opened, first map painted | view change → painted map (median, max) |")
        print("| --- | --- | --- | --- |")
        times = []
        for layer, head in ((0, 1), (1, 2), (1, 3), (0, 0), (1, 0)):
            started = time.perf_counter()
            window.attention.select_view(AttentionKind.ENCODER_SELF, layer, head)
            window.attention.heatmap.grab()  # (painted)
            times.append(time.perf_counter() - started)
        print(f"| {len(source.tokens):,} | {source.on_demand is not None} | {opened:.2f} s | "
              f"{1e3 * statistics.median(times):.0f} ms, {1e3 * max(times):.0f} ms ({len(times)} maps) |")
        if args.shot:
            window.attention.select_view(AttentionKind.ENCODER_SELF, 1, 3)
            app.processEvents()
            window.grab().save(args.shot)
            print(f"wrote {args.shot}")
            # Zoomed with the wheel around a cell near the diagonal, as a reader would: 20 notches
            heatmap = window.attention.heatmap
            row = col = len(source.tokens) * 3 // 4
            for _ in range(20):
                at = heatmap.cell_rect(row, col - 6).center()
                QtWidgets.QApplication.sendEvent(heatmap, QtGui.QWheelEvent(
                    at, heatmap.mapToGlobal(at), QtCore.QPoint(), QtCore.QPoint(0, 120), QtCore.Qt.MouseButton.NoButton,
                    QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False))
            zoomed_times = []
            for layer, head in ((0, 1), (1, 2), (1, 3)):  # (a view change keeps the region on show)
                started = time.perf_counter()
                window.attention.select_view(AttentionKind.ENCODER_SELF, layer, head)
                heatmap.grab()
                zoomed_times.append(time.perf_counter() - started)
            x, y, width, height = heatmap.view_region()
            print(f"zoomed to columns {x:.0f}–{x + width:.0f}, rows {y:.0f}–{y + height:.0f}: view change → painted "
                  f"map {1e3 * statistics.median(zoomed_times):.0f} ms median, {1e3 * max(zoomed_times):.0f} ms max")
            zoomed = str(Path(args.shot).with_name(Path(args.shot).stem + "-zoomed.png"))
            window.grab().save(zoomed)
            print(f"wrote {zoomed}")
        if args.real_size:
            peak = _vm_hwm_mb()
            print(f"model {model_mb:,.0f} MiB; the window's peak resident memory {peak:,.0f} MiB "
                  f"(peak − model {peak - model_mb:,.0f} MiB; the bound is model + 2,048 MiB)")
        window.close()
    return 0


def _make_real_size(folder: Path, tokens: int) -> None:
    """bench/long_maps.py's 246 M Llama shape with ``tokens`` positions, saved in ``folder`` by another process
    (building it here would count its weights twice in this process's peak)."""
    import subprocess

    code = ("import sys; sys.path.insert(0, sys.argv[1]); from bench.long_maps import SIZES, make_folder; "
            "from pathlib import Path; sizes = dict(SIZES['llama'], max_position_embeddings=int(sys.argv[3])); "
            "make_folder(Path(sys.argv[2]), sizes)")
    subprocess.run([sys.executable, "-c", code, str(ROOT), str(folder), str(tokens)], check=True)


def _vm_hwm_mb() -> float:
    """This process's peak resident memory so far, MB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    sys.exit(main())
