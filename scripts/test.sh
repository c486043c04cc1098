#!/usr/bin/env bash
# Set up (or refresh) .venv, then lint, build the user guide strictly and check its links, and run the whole test
# suite (offscreen Qt, no GPU needed).
# pytest runs on every CPU (pytest-xdist, -n logical: one worker per CPU), a test module at a time on one worker
# (--dist loadfile: its module fixtures are built once), the slowest modules first (tests/conftest.py).
# mypy checks the types beside it (its half-minute overlaps the suite's start-up and its last module; its
# report follows pytest's). `bash scripts/test.sh -n 0 ...` runs pytest in one process (-s, --pdb).
source "$(dirname "$0")/_env.sh"
export QT_QPA_PLATFORM=offscreen
.venv/bin/python -m ruff check .
# The user guide: docs/ built by MkDocs with --strict (a warning fails), then every link of it and of README.md
# (a page, an anchor, an image; nothing loaded from the network). About two seconds.
.venv/bin/python scripts/check_docs.py
types_log="$(mktemp)"
trap 'rm -f "$types_log"' EXIT
.venv/bin/python -m mypy >"$types_log" 2>&1 &
types=$!
status=0
.venv/bin/python -m pytest -n logical --dist loadfile --no-loadscope-reorder "$@" || status=$?
if wait "$types"; then
  tail -n 1 "$types_log"
else
  cat "$types_log"
  echo "[attnviz] mypy found type errors (above)" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
