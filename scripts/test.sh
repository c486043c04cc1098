#!/usr/bin/env bash
# Set up (or refresh) .venv, then lint and run the whole test suite (offscreen Qt, no GPU needed).
source "$(dirname "$0")/_env.sh"
export QT_QPA_PLATFORM=offscreen
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
.venv/bin/python -m pytest "$@"
