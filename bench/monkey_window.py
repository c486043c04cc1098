"""Random user actions in the real window: its memory (RSS) and the longest gaps of its event loop.

    .venv/bin/python bench/monkey_window.py --seed 1 --actions 1500            # the shipped small BERT
    .venv/bin/python bench/monkey_window.py --seed 2 --actions 1500 --objects   # and what holds memory
    .venv/bin/python bench/monkey_window.py --seed 1 --actions 400 --tracemalloc 10   # the top growing lines
    xvfb-run -s "-screen 0 1024x768x24" sh -c 'openbox & QT_QPA_PLATFORM=xcb .venv/bin/python bench/monkey_window.py'

The real :class:`MainWindow` (offscreen, 1024 × 768), its jobs on the app's own threads (``ThreadRunner``, as
``attnviz`` runs them; ``--inline`` runs them on the GUI thread instead), the shipped small BERT
(``models/encoder-only.safetensors``). Each action is drawn at random, with the seed, from what a user does:
typing a sentence with ``[MASK]`` (key by key, of words from the model's
vocabulary), an example sentence, Step / Back / Run / Reset, the timeline,
the attention kind, layer, head, All heads, pre-softmax scores, the Head atlas raised and mapped over the
session's sentences, the Explain dock raised (it explains the step on show) and its choices, the lecture view
on and off and its keys, presentation mode, a click on the map, the window resized, and now and then the shipped
Transformer opened and the BERT again (the Head atlas maps heads of translation models only). The actions run
from timers inside ``app.exec()``, as the app's own event loop: after each, the loop runs until the session is
idle again (at most ``--wait`` seconds), then a pause of 20–80 ms.

A 10 ms timer on the GUI thread measures how late the event loop is (a gap: the time between two of its
ticks); each gap over 0.1 s is put down to the action under way. Every ``--every`` actions the resident memory
(VmRSS from /proc/self/status) is read after a full garbage collection, with (``--objects``) Python's objects
by type and Qt's objects and widgets, the session's collections and the heatmaps' label caches. The
measurements themselves are not counted in the gaps. Warnings the window would show in a dialog are counted
instead (a dialog would wait for a click).
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

WORDS: list[str] = []  # the words typed: the opened model's own (a few thousand, as varied as a class's sentences)
GAP_REPORTED_S = 0.1


def rss_mb() -> float:
    """This process's resident memory, MB (VmRSS of /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def trimmed_rss_mb() -> float:
    """The resident memory once glibc has handed its free heap pages back (``malloc_trim(0)``): what is held,
    without the freed memory the allocator keeps for later (which makes the plain RSS jump by tens of MB)."""
    import ctypes

    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_mb()


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares MB per 1,000 actions through (actions, MB) points."""
    if len(points) < 2:
        return float("nan")
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return 1000 * sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else float("nan")


def masked_sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(4, 14))]
    for _ in range(rng.randint(1, 2)):
        words[rng.randrange(len(words))] = "[MASK]"
    return " ".join(words) + " ."


class Heartbeat:
    """A 10 ms timer: the longest gaps between its ticks, each put down to the action under way."""

    def __init__(self) -> None:
        from PySide6 import QtCore

        self.timer = QtCore.QTimer(interval=10)
        self.timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.action = "start"
        self.gaps: list[tuple[float, str]] = []  # (seconds, action) of every gap over GAP_REPORTED_S
        self.longest = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self.last
        self.last = now
        self.longest = max(self.longest, gap)
        if gap > GAP_REPORTED_S:
            self.gaps.append((gap, self.action))

    def pause(self) -> None:
        self.timer.stop()

    def resume(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()


class Monkey:
    """The actions (see the module) on ``window``, drawn with ``rng``."""

    def __init__(self, app: Any, window: Any, rng: random.Random, bert: Path, transformer: Path, wait_s: float,
                 beat: Heartbeat):
        self.app, self.window, self.rng, self.beat = app, window, rng, beat
        self.bert, self.transformer, self.wait_s = bert, transformer, wait_s
        self.counts: collections.Counter[str] = collections.Counter()
        self.actions = [  # (weight, name, action)
            (6, "type a sentence", self.type_sentence), (3, "example sentence", self.example),
            (14, "step", lambda: self.window.step_action.trigger()),
            (5, "back", lambda: self.window.back_action.trigger()),
            (4, "run to end", lambda: self.window.run_action.trigger()),
            (3, "reset", lambda: self.window.reset_action.trigger()),
            (3, "timeline", self.timeline), (4, "kind", self.kind), (5, "layer", self.layer), (5, "head", self.head),
            (4, "all heads", lambda: self.attention.all_heads.toggle()),
            (2, "scores", lambda: self.attention.scores.toggle()),
            (3, "raise head atlas + map heads", self.map_heads), (5, "raise explain", self.raise_explain),
            (2, "explain choices", self.explain_choices), (4, "lecture view", self.lecture),
            (5, "lecture keys", self.lecture_keys), (2, "presentation mode", self.presentation),
            (3, "click the map", self.click_map), (2, "resize", self.resize), (2, "raise a dock", self.raise_dock),
            (1, "open the other model", self.other_model),
        ]

    @property
    def attention(self) -> Any:
        return self.window.panels.panels["attention"]

    def one(self) -> str:
        weights = [w for w, _name, _act in self.actions]
        _w, name, act = self.rng.choices(self.actions, weights)[0]
        self.beat.action = name
        self.counts[name] += 1
        act()
        return name

    def run(self, total: int, after: Callable[[int], None]) -> None:
        """``total`` actions from inside the application's event loop (``app.exec()``, as in the app: Qt deletes
        what was ``deleteLater``'d only there); after each, the loop runs until the session is idle (the atlas
        too, at most ``wait_s``), then ``after(done)``, then a user's pause of 20–80 ms."""
        from PySide6 import QtCore

        done, began = [0], [0.0]

        def act() -> None:
            if done[0] >= total:
                self.app.quit()
                return
            self.one()
            done[0] += 1
            began[0] = time.perf_counter()
            QtCore.QTimer.singleShot(5, settle)

        def settle() -> None:
            state = self.window.session.state
            if (state.busy or state.atlas_progress is not None or state.loading) and \
                    time.perf_counter() - began[0] < self.wait_s:
                QtCore.QTimer.singleShot(5, settle)
                return
            after(done[0])
            QtCore.QTimer.singleShot(round(self.rng.uniform(20, 80)), act)

        QtCore.QTimer.singleShot(0, act)
        self.app.exec()

    # -- the actions ------------------------------------------------------------------------------------
    def type_sentence(self) -> None:
        from PySide6 import QtTest

        field = self.window.sentence
        if self.window.lecture.active or not field.isVisible():
            self.window.set_sentence(masked_sentence(self.rng))
            return
        field.setFocus()
        field.selectAll()
        QtTest.QTest.keyClicks(field, masked_sentence(self.rng))

    def example(self) -> None:
        self.window.set_sentence(masked_sentence(self.rng), run=self.rng.random() < 0.3)

    def timeline(self) -> None:
        line = self.window.timeline
        if line.isEnabled() and line.maximum() > line.minimum():
            line.setValue(self.rng.randint(line.minimum(), line.maximum()))

    def _box(self, box: Any) -> None:
        if box.isEnabled() and box.maximum() > box.minimum():
            box.setValue(self.rng.randint(box.minimum(), box.maximum()))

    def kind(self) -> None:
        box = self.attention.kind_box
        if box.count() > 1:
            box.setCurrentIndex(self.rng.randrange(box.count()))

    def layer(self) -> None:
        self._box(self.attention.layer_box)

    def head(self) -> None:
        self._box(self.attention.head_box)

    def _raise(self, name: str) -> bool:
        dock = self.window.docks[name]
        if self.window.lecture.active:
            return False
        dock.show()
        dock.raise_()
        return True

    def map_heads(self) -> None:
        if self._raise("heads") and self.window.session.sentences_seen:
            self.window.panels.panels["heads"].map_heads()

    def raise_explain(self) -> None:
        self._raise("explain")

    def explain_choices(self) -> None:
        panel = self.window.panels.panels["explain"]
        choice = self.rng.randrange(3)
        if choice == 0:
            self._box(panel.layer_box)
        elif choice == 1 and panel.head_box.count():
            panel.head_box.setCurrentIndex(self.rng.randrange(panel.head_box.count()))
        elif panel.token_box.count():
            panel.token_box.setCurrentIndex(self.rng.randrange(panel.token_box.count()))

    def lecture(self) -> None:
        self.window.lecture.action.trigger()

    def lecture_keys(self) -> None:
        lecture = self.window.lecture
        if not lecture.active:
            self.lecture()
            return
        self.rng.choice((lambda: lecture.move_view(head=1), lambda: lecture.move_view(layer=1),
                         lecture.next_kind, lecture.toggle_play, lambda: self.window.step_action.trigger()))()

    def presentation(self) -> None:
        self.window.presentation_action.trigger()

    def click_map(self) -> None:
        from PySide6 import QtCore, QtTest

        heatmap = self.attention.heatmap
        if heatmap.isVisible() and heatmap.width() > 10:
            point = QtCore.QPoint(self.rng.randrange(heatmap.width()), self.rng.randrange(heatmap.height()))
            QtTest.QTest.mouseClick(heatmap, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                                    point)

    def resize(self) -> None:
        self.window.resize(*self.rng.choice(((1024, 768), (1280, 800), (900, 700), (1400, 900))))

    def raise_dock(self) -> None:
        names = [name for name, dock in self.window.docks.items() if dock.isVisible()]
        if names:
            self._raise(self.rng.choice(names))

    def other_model(self) -> None:
        model = self.window.session.state.model
        self.window.load(self.transformer if model is not None and model.path == self.bert else self.bert)


def kept_labels(heatmap: Any) -> tuple[int, int]:
    """The label widths and laid-out texts a heatmap keeps (also in a checkout from before they were bounded)."""
    if hasattr(heatmap, "kept_labels"):
        return heatmap.kept_labels()
    return (sum(len(w) for w, _t in heatmap._kept.values()), sum(len(t) for _w, t in heatmap._kept.values()))


def census(window: Any, objects: bool) -> dict[str, Any]:
    """What may hold memory: the session's collections, label caches, Qt objects; Python objects by type."""
    from PySide6 import QtCore, QtWidgets

    from attnviz.gui.heatmap import Heatmap

    session = window.session
    heatmaps = window.findChildren(Heatmap)
    out: dict[str, Any] = {
        "qobjects": len(window.findChildren(QtCore.QObject)), "widgets": len(QtWidgets.QApplication.allWidgets()),
        "sentences_seen": len(session.sentences_seen), "steps": len(session.state.steps),
        "label widths kept": sum(kept_labels(h)[0] for h in heatmaps),
        "label texts kept": sum(kept_labels(h)[1] for h in heatmaps),
    }
    if objects:
        out["qt classes"] = collections.Counter(o.metaObject().className() for o in window.findChildren(QtCore.QObject))
        counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
        out["py objects"] = sum(counts.values())
        out["types"] = counts
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="30 actions, a reading every 10 (a smoke test)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--actions", type=int, default=1500)
    parser.add_argument("--every", type=int, default=250, help="read the memory every N actions")
    parser.add_argument("--wait", type=float, default=30.0, help="seconds at most for an action's jobs to end")
    parser.add_argument("--inline", action="store_true", help="jobs on the GUI thread (InlineRunner)")
    parser.add_argument("--objects", action="store_true", help="Python objects by type at each reading")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N",
                        help="trace Python's allocations (numpy's too) and print the N places that grew most since "
                             "the first reading after the start (slow)")
    parser.add_argument("--only", default="", help="only these actions (comma-separated names, as the table has "
                        "them), e.g. 'lecture view,step'")
    parser.add_argument("--checkpoint", type=Path, default=ROOT / "models" / "encoder-only.safetensors")
    parser.add_argument("--other", type=Path, default=ROOT / "models" / "transformer.safetensors")
    args = parser.parse_args()
    if args.quick:
        args.actions, args.every = 30, 10

    from PySide6 import QtWidgets

    from attnviz.core.device import set_threads
    from attnviz.gui import errors
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner, ThreadRunner
    from bench._window import wait_until

    warnings: collections.Counter[str] = collections.Counter()
    from attnviz.gui import collector

    passes: list[tuple[float, int]] = []  # (seconds, generation) of each pass of the app's garbage collector
    collect = collector.GuiThreadCollector.collect

    def timed_collect(self: Any) -> None:
        generation = -1  # (the generation it collects: as GuiThreadCollector.collect chooses it)
        for index, (count, threshold) in enumerate(zip(gc.get_count(), self.thresholds, strict=True)):
            if count <= threshold:
                break
            generation = index
        began = time.perf_counter()
        collect(self)
        if generation >= 0:
            passes.append((time.perf_counter() - began, generation))

    collector.GuiThreadCollector.collect = timed_collect  # type: ignore[method-assign]
    errors.warn = lambda _parent, message: warnings.update([message.split(":")[0][:60]])  # type: ignore[assignment]
    set_threads()
    app = QtWidgets.QApplication([])
    folder = Path(tempfile.mkdtemp())
    runner = InlineRunner() if args.inline else ThreadRunner(Poster().post)
    window = MainWindow(Settings(folder / "s.ini"), runner)
    window.resize(1024, 768)
    window.show()
    window.load(args.checkpoint)
    wait_until(app, window, lambda: window.session.state.model is not None)
    WORDS.extend(word for word in window.session.loaded.src_vocab.tokens if word.isalpha())
    window.set_sentence("the man went to the [MASK] to buy some bread .")
    wait_until(app, window, lambda: window.session.state.source is not None)
    rng = random.Random(args.seed)
    beat = Heartbeat()
    monkey = Monkey(app, window, rng, args.checkpoint.resolve(), args.other.resolve(), args.wait, beat)
    if args.only:
        wanted = {name.strip() for name in args.only.split(",")}
        monkey.actions = [row for row in monkey.actions if row[1] in wanted]
        if {row[1] for row in monkey.actions} != wanted:
            raise SystemExit(f"--only: no such action among {wanted}")
    if args.tracemalloc:
        tracemalloc.start(8)
    readings: list[tuple[int, float, dict[str, Any]]] = []  # (actions, RSS MB, census with "trimmed" RSS MB)
    first_snapshot: list[tracemalloc.Snapshot] = []  # taken at the first reading after the start (warm-up done)

    def read(done: int) -> None:
        beat.pause()
        gc.collect()
        mb, seen = rss_mb(), census(window, args.objects)
        model = window.session.state.model
        seen = {"trimmed": round(trimmed_rss_mb(), 1), "model": model.path.stem if model else None, **seen}
        readings.append((done, mb, seen))
        if args.tracemalloc and len(readings) == 2:
            first_snapshot.append(tracemalloc.take_snapshot())
        beat.resume()

    print(f"seed {args.seed}, {args.actions} actions, {args.checkpoint.name}, "
          f"{'InlineRunner' if args.inline else 'ThreadRunner (the app)'}, 1024 × 768 {app.platformName()}, "
          f"{os.cpu_count()} CPUs", flush=True)
    read(0)
    started = time.perf_counter()
    beat.resume()

    def after(done: int) -> None:
        if done % args.every == 0 or done == args.actions:
            read(done)
            _n, mb, seen = readings[-1]
            print(f"  {done:5d} actions, {time.perf_counter() - started:6.0f} s: RSS {mb:7.1f} MB, "
                  + ", ".join(f"{k} {v}" for k, v in seen.items() if k not in ("types", "qt classes")), flush=True)

    monkey.run(args.actions, after)
    beat.pause()
    wall = time.perf_counter() - started

    print("\n| action | times |\n| --- | --- |")
    for name, count in monkey.counts.most_common():
        print(f"| {name} | {count} |")
    first, last = readings[0], readings[-1]
    half = readings[len(readings) // 2]
    growth = (last[1] - first[1]) / max(args.actions, 1) * 1000
    late = (last[1] - half[1]) / max(last[0] - half[0], 1) * 1000
    gaps = sorted(beat.gaps, reverse=True)
    print(f"\nRSS {first[1]:.0f} MB → {last[1]:.0f} MB over {args.actions} actions ({wall:.0f} s): "
          f"{growth:+.1f} MB per 1,000 actions ({late:+.1f} over the second half)")
    warm = [(n, mb) for n, mb, _seen in readings[1:]]
    trimmed = [(n, seen["trimmed"]) for n, _mb, seen in readings[1:]]
    print(f"after the first {readings[1][0] if len(readings) > 1 else 0} actions (warm-up: the other model, "
          f"autograd, pyqtgraph): RSS {slope(warm):+.1f} MB per 1,000 actions, after malloc_trim "
          f"{trimmed[0][1] if trimmed else 0:.0f} → {last[2]['trimmed']:.0f} MB, {slope(trimmed):+.1f} MB per 1,000 "
          f"actions (least squares over the readings)")
    print(f"longest event-loop gap {beat.longest * 1000:.0f} ms; gaps over 0.5 s: "
          f"{sum(1 for g, _a in gaps if g > 0.5)}; over 0.1 s: {len(gaps)}")
    for gap, action in gaps[:8]:
        print(f"  {gap * 1000:6.0f} ms  {action}")
    by_action = collections.defaultdict(list)
    for gap, action in gaps:
        by_action[action].append(gap)
    for action, values in sorted(by_action.items(), key=lambda kv: -max(kv[1])):
        print(f"  {action}: {len(values)} gaps over 0.1 s, median {statistics.median(values) * 1000:.0f} ms")
    if passes:
        worst = max(passes)
        print(f"the app's garbage collector (on the GUI thread): {len(passes)} passes, the longest "
              f"{worst[0] * 1000:.0f} ms (generation {worst[1]}), {sum(1 for p, _g in passes if p > 0.1)} over 0.1 s")
    if warnings:
        print("dialogs (counted, not shown):", dict(warnings))
    if args.objects and len(readings) > 1:
        grown = readings[-1][2]["types"] - readings[1][2]["types"]
        print("Python objects that grew most since the first reading:", grown.most_common(15))
        qt_grown = readings[-1][2]["qt classes"] - readings[1][2]["qt classes"]
        print("Qt objects (the window's children) that grew most since then:", qt_grown.most_common(10))
    if first_snapshot:
        print(f"Python's allocations that grew most since the reading at {readings[1][0]} actions:")
        for stat in tracemalloc.take_snapshot().compare_to(first_snapshot[0], "traceback")[: args.tracemalloc]:
            print(f"{stat.size_diff / 1e6:+.2f} MB, {stat.count_diff:+d} blocks:")
            for line in stat.traceback.format()[-8:]:
                print("   ", line)
    sys.stdout.flush()
    os._exit(0)  # (the worker threads and Qt's teardown are not what is measured)


if __name__ == "__main__":
    sys.exit(main())
