#!/usr/bin/env bash
# Regenerate resources/screenshot.png from the real window under Xvfb (installs xvfb if missing).
source "$(dirname "$0")/_env.sh"
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "[attnviz] installing xvfb (needs apt-get)" >&2
  apt-get install -y -q xvfb >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q xvfb >/dev/null; }
fi
unset QT_QPA_PLATFORM
exec xvfb-run -a -s "-screen 0 1600x940x24" .venv/bin/python scripts/screenshot.py "$@"
