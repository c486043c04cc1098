#!/usr/bin/env bash
# Set up (or refresh) .venv, then launch attnviz. Extra arguments go to the app (attnviz --help).
source "$(dirname "$0")/_env.sh"
# Qt 6 on X11 needs libxcb-cursor0, which many Linux desktops lack: say so plainly instead of Qt's abort.
if [ -z "${QT_QPA_PLATFORM:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && command -v ldconfig >/dev/null 2>&1 \
   && ! ldconfig -p 2>/dev/null | grep -q 'libxcb-cursor\.so\.0'; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[attnviz] installing libxcb-cursor0 (Qt's X11 platform needs it)" >&2
    apt-get install -y -q libxcb-cursor0 >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q libxcb-cursor0 >/dev/null 2>&1; } || true
  else
    echo "[attnviz] Qt needs libxcb-cursor0 on X11; if the window does not open: sudo apt-get install libxcb-cursor0" >&2
  fi
fi
exec .venv/bin/python main.py "$@"
