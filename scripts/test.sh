#!/usr/bin/env bash
# Set up (or refresh) .venv, then lint and run the whole test suite (offscreen Qt, no GPU needed).
# pytest runs on every CPU (pytest-xdist, -n logical: one worker per CPU), a test module at a time on one worker
# (--dist loadfile: its module fixtures are built once). `bash scripts/test.sh -n 0 ...` runs in one process (-s, --pdb).
source "$(dirname "$0")/_env.sh"
export QT_QPA_PLATFORM=offscreen
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
.venv/bin/python -m pytest -n logical --dist loadfile "$@"
