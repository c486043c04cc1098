"""Start time of the standalone app beside `python main.py`, in one run (medians).

    bash packaging/build.sh && .venv/bin/python bench/frozen_start.py [--launches 7]

For each program: launch → first painted window, and launch → the start-up sentence decoded (model
loaded, translated, drawn), offscreen, each launch a fresh process with its own settings file.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from app_bench import launch_times  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=7)
    parser.add_argument("--app", type=Path, default=ROOT / "dist" / "attnviz" / "attnviz")
    parser.add_argument("--quick", action="store_true",
                        help="a seconds-long smoke run (tests/test_bench.py): 1 launch")
    args = parser.parse_args()
    if args.quick:
        args.launches = 1
    if not args.app.is_file():
        print(f"no standalone app at {args.app}: run bash packaging/build.sh first", file=sys.stderr)
        return 2
    checkpoint = ROOT / "models" / "transformer.safetensors"
    platform = os.environ["QT_QPA_PLATFORM"]
    print(f"{os.cpu_count()} CPUs; medians of {args.launches} launches; QT_QPA_PLATFORM={platform}")
    for name, program in (("standalone dist/attnviz/attnviz", [str(args.app)]),
                          ("python main.py", [sys.executable, str(ROOT / "main.py")])):
        paint, decoded = launch_times(checkpoint, args.launches, program)
        print(f"{name:32s} first paint {paint * 1000:6.0f} ms   start-up sentence decoded {decoded * 1000:6.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
