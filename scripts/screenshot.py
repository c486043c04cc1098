"""Regenerate resources/screenshot.png: the real main window on a real (virtual) X display.

    bash scripts/screenshot.sh            # installs xvfb if missing, then runs this under xvfb-run

Opens the window with the shipped Transformer, decodes a sentence to the end, shows its
cross-attention with the masked-cell overlay and the positional-encoding tab, and grabs the
screen through the X server (not a widget render), so what you see is what a user sees.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SENTENCE = "i think we should go home before it rains ."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "transformer.safetensors")
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "screenshot.png")
    parser.add_argument("--text", default=SENTENCE)
    parser.add_argument("--size", default="1600x940", help="window size WIDTHxHEIGHT (the screen is 1600x940)")
    parser.add_argument("--dock", default="positional", help="the left dock to raise (e.g. computation, rollout)")
    parser.add_argument("--inspect-row", type=int, help="click this row of the Attention heatmap (Computation)")
    parser.add_argument("--right-dock", default="attention", help="the right dock to raise (e.g. beams, compare)")
    parser.add_argument("--beam", type=int, default=1, help="beam size")
    parser.add_argument("--layer", type=int, help="the Attention view's layer, from 1 (default: the last decoder one)")
    parser.add_argument("--head", type=int, default=2, help="the Attention view's head, from 1 (default 2)")
    parser.add_argument("--compare", type=Path, help="a checkpoint for the Compare dock")
    parser.add_argument("--lang", default="en", help="the interface's language (en or zh_CN)")
    parser.add_argument("--text-scale", type=float, default=1.0, help="presentation mode's text size (1.5: 150 %%)")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))

    from PySide6 import QtCore, QtWidgets

    from attnviz.core.attention.kind import AttentionKind
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    app = QtWidgets.QApplication(sys.argv[:1])
    if app.platformName() != "xcb":
        print(f"needs an X display (got Qt platform {app.platformName()!r}); run scripts/screenshot.sh",
              file=sys.stderr)
        return 2
    from attnviz.gui.language import install_language

    install_language(app, args.lang)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(Path(folder) / "settings.ini")
        settings.text_scale = args.text_scale  # (the window applies it before any widget measures its text)
        window = MainWindow(settings, InlineRunner())
        window.resize(width, height)
        window.move(0, 0)
        window.show()
        window.load(args.checkpoint)
        window.beam_box.setValue(args.beam)
        window.set_sentence(args.text, run=True)
        model = window.session.state.model
        layer = args.layer - 1 if args.layer else (model.decoder_layers - 1 if model else 0)
        window.attention.select_view(AttentionKind.CROSS, layer, args.head - 1)
        window.docks[args.dock].raise_()
        window.docks[args.right_dock].raise_()
        if args.compare is not None:
            window.panels.panels["compare"].compare_with(args.compare)
        if args.inspect_row is not None:
            window.attention.heatmap.clicked.emit(args.inspect_row, 0)
        for _ in range(20):
            app.processEvents()
            QtCore.QThread.msleep(25)
        screen = window.screen()
        picture = screen.grabWindow(0, 0, 0, window.frameGeometry().width(), window.frameGeometry().height())
        args.out.parent.mkdir(parents=True, exist_ok=True)
        if not picture.save(str(args.out)):
            print(f"could not write {args.out}", file=sys.stderr)
            return 1
        print(f"wrote {args.out} ({picture.width()}x{picture.height()})")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
