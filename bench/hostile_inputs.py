"""Memory and time of the hostile inputs of issue 59 §5, each the real CLI in a fresh process.

    .venv/bin/python bench/hostile_inputs.py [--quick] [--side 7000] [--images 64] [--paths 300]

Each case runs ``python -m attnviz …`` under a small parent that reports the child's peak resident memory
(``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest of the job's processes) and its wall time, with the
child's exit code and the last line it wrote on stderr:

* ``heads --data`` over a folder of ``--images`` grey (or RGBA) PNGs of ``--side`` × ``--side`` pixels with the
  shipped ViT, and with a tiny DINOv2 folder whose processor resizes the shorter edge to 256 and crops 224;
* ``classify`` of ``--paths`` such paths with the shipped ViT;
* ``classify`` of a grey strip of 20,000 × 1 (10,000 × 1, 2,000 × 1) pixels with that DINOv2 folder;
* a config.json whose ``num_labels`` is 2³¹ (a ViT, a BERT and a Marian folder);
* ``heads --processes 2`` whose --out lies on a full disk (a 64 KiB tmpfs filled up: needs root, else left out);
* ``explain`` whose --out holds a file named as one of its figures;
* ``heads`` over a 200,000-line file: the seconds until its first progress line (then it is stopped).

--quick: small cases (4 images of 1,000 × 1,000, 8 paths, a 2,000-line file) and one of each kind (the grey images
only, the 2,000-pixel strip only, the ViT folder's 2³¹ labels only): the smoke run of tests/test_bench.py, which checks
that the script runs, not its figures (each case is a fresh process that imports torch: 7 of them instead of 14).
The images are one file linked under many names (each is still decoded on its own).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VIT = ROOT / "models" / "vit.safetensors"
TRANSFORMER = ROOT / "models" / "transformer.safetensors"
MEASURE = ("import resource, subprocess, sys, time\n"
           "started = time.perf_counter()\n"
           "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
           "seconds = time.perf_counter() - started\n"
           "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
           "last = (done.stderr.strip().splitlines() or [''])[-1]\n"
           "print(f'{peak:.0f}\\t{seconds:.1f}\\t{done.returncode}\\t{last}')\n")


def measured(*args: str) -> tuple[float, float, int, str]:
    """``python -m attnviz ARGS`` in a fresh process: (its peak resident memory in MB, seconds, exit code, the last
    line of its stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "attnviz", *args],
                         capture_output=True, text=True, env=env, check=True).stdout.strip().split("\t", 3)
    return float(out[0]), float(out[1]), int(out[2]), out[3] if len(out) > 3 else ""


def image_folder(folder: Path, name: str, side: int, count: int, mode: str) -> Path:
    """``count`` names in ``folder`` for one PNG of side × side pixels in ``mode`` (a soft gradient)."""
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True)
    ramp = (np.arange(side, dtype=np.uint32) * 255 // max(side - 1, 1)).astype(np.uint8)
    grey = np.broadcast_to(ramp, (side, side))
    image = Image.fromarray(np.ascontiguousarray(grey), "L")
    if mode == "RGBA":
        image = Image.merge("RGBA", (image, image.transpose(Image.Transpose.TRANSPOSE), image, image))
    first = folder / f"{name}0000.png"
    image.save(first, compress_level=1)
    for index in range(1, count):
        os.link(first, folder / f"{name}{index:04d}.png")
    return folder


def dinov2_folder(folder: Path) -> Path:
    """A tiny DINOv2 (2 layers, width 16, 224-pixel pictures of 16-pixel patches) whose processor resizes the
    shorter edge to 256 and crops 224, as the hub's DINOv2 folders do."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.Dinov2Config(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2,
                                       image_size=224, patch_size=16, id2label={0: "cat", 1: "dog"},
                                       label2id={"cat": 0, "dog": 1})
    transformers.Dinov2ForImageClassification(config).save_pretrained(folder)
    transformers.BitImageProcessor(size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224}
                                   ).save_pretrained(folder)
    return folder


def many_labels(source: Path, folder: Path) -> Path:
    """A copy of the folder ``source`` whose config.json says ``num_labels``: 2³¹."""
    import shutil

    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text())
    config.pop("id2label", None)
    config.pop("label2id", None)
    (folder / "config.json").write_text(json.dumps({**config, "num_labels": 2**31}))
    return folder


def strip(path: Path, length: int) -> Path:
    from PIL import Image

    Image.new("L", (length, 1), 200).save(path)
    return path


def full_disk(mount: Path) -> bool:
    """A 64 KiB tmpfs at ``mount``, filled up; False where it cannot be mounted (not root)."""
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                                           capture_output=True, check=False).returncode:
        return False
    with open(mount / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"x" * 1024)
        except OSError:
            pass
    return True


def first_progress(data: Path, out: Path) -> tuple[float, str]:
    """``heads`` of the shipped Transformer over ``data``: seconds until its first progress line, and that line
    (the run is stopped there)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    job = subprocess.Popen([sys.executable, "-m", "attnviz", "heads", "--checkpoint", str(TRANSFORMER), "--data",
                            str(data), "--out", str(out), "--no-pruning"], stderr=subprocess.PIPE, text=True,
                           env=env, stdout=subprocess.DEVNULL)
    assert job.stderr is not None
    line = job.stderr.readline().strip()
    seconds = time.perf_counter() - started
    job.terminate()
    job.wait()
    return seconds, line


def row(case: str, result: tuple[float, float, int, str]) -> None:
    peak, seconds, code, last = result
    print(f"| {case} | {peak:,.0f} | {seconds:.1f} | {code} | {last[:150]} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--side", type=int, default=7000)
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--paths", type=int, default=300)
    parser.add_argument("--lines", type=int, default=200_000)
    args = parser.parse_args()
    if args.quick:
        args.side, args.images, args.paths, args.lines = 1000, 4, 8, 2000
    from tests.hf_encoder_folders import make_encoder_folder
    from tests.hf_folders import make_folder
    from tests.hf_vision_folders import make_vision_folder

    with tempfile.TemporaryDirectory() as temporary:
        tmp = Path(temporary)
        grey = image_folder(tmp / "grey", "grey", args.side, args.images, "L")
        rgba = None if args.quick else image_folder(tmp / "rgba", "rgba", args.side, args.images, "RGBA")
        dinov2 = dinov2_folder(tmp / "dinov2")
        side = f"{args.side:,} × {args.side:,}"
        print("| case | peak resident memory, MB | seconds | exit code | last line on stderr |")
        print("|---|---|---|---|---|")
        row(f"heads, ViT, {args.images} grey PNGs of {side}",
            measured("heads", "--checkpoint", str(VIT), "--data", str(grey), "--out", str(tmp / "a1")))
        if not args.quick:
            row(f"heads, ViT, {args.images} RGBA PNGs of {side}",
                measured("heads", "--checkpoint", str(VIT), "--data", str(rgba), "--out", str(tmp / "a2")))
            row(f"heads, tiny DINOv2 (shortest edge 256), {args.images} grey PNGs of {side}",
                measured("heads", "--checkpoint", str(dinov2), "--data", str(grey), "--out", str(tmp / "a3")))
        paths = [str(grey / f"grey{index % args.images:04d}.png") for index in range(args.paths)]
        row(f"classify, ViT, {args.paths} paths of grey {side} PNGs",
            measured("classify", "--checkpoint", str(VIT), *paths))
        for length in (2_000,) if args.quick else (20_000, 10_000, 2_000):
            row(f"classify, tiny DINOv2, a {length:,} × 1 grey strip",
                measured("classify", "--checkpoint", str(dinov2), str(strip(tmp / f"strip{length}.png", length))))
        data = tmp / "data.txt"
        data.write_text("the house is big .\tla maison est grande .\ni am here .\tje suis là .\n", encoding="utf-8")
        vit_folder = many_labels(make_vision_folder("vit", tmp / "vit-made"), tmp / "vit-labels")
        row("classify, a ViT folder with num_labels 2³¹", measured("classify", "--checkpoint", str(vit_folder),
                                                                  str(grey / "grey0000.png")))
        for family, made in () if args.quick else (("BERT", make_encoder_folder("bert", tmp / "bert-made")),
                                                   ("Marian", make_folder("marian", tmp / "marian-made"))):
            folder = many_labels(made, tmp / f"{family}-labels")
            row(f"heads, a {family} folder with num_labels 2³¹",
                measured("heads", "--checkpoint", str(folder), "--data", str(data), "--out", str(tmp / family)))
        if full_disk(tmp / "full"):
            row("heads --processes 2, --out on a full disk",
                measured("heads", "--checkpoint", str(TRANSFORMER), "--data", str(data), "--processes", "2",
                         "--out", str(tmp / "full" / "atlas")))
            subprocess.run(["umount", str(tmp / "full")], check=False)
        else:
            print("| heads --processes 2, --out on a full disk | (not measured: mounting a tmpfs needs root) | | | |")
        planted = tmp / "planted"
        planted.mkdir()
        (planted / "tau_attention_vs_rollout.png").write_bytes(b"mine")
        row("explain, a figure's name planted in --out",
            measured("explain", "--checkpoint", str(TRANSFORMER), "--data", str(data), "--out", str(planted)))
        lines = tmp / "lines.txt"
        with open(lines, "w", encoding="utf-8") as handle:
            for index in range(args.lines):
                handle.write(f"the house {index % 97} is big .\tla maison {index % 89} est grande .\n")
        seconds, line = first_progress(lines, tmp / "progress")
        print(f"| heads over {args.lines:,} lines: its first progress line | | {seconds:.1f} | | {line[:150]} |")


if __name__ == "__main__":
    main()
