#!/usr/bin/env bash
# Set up (or refresh) .venv, then launch attnviz. Extra arguments go to the app (attnviz --help).
source "$(dirname "$0")/_env.sh"
# On X11, Qt's xcb plugin aborts naming only libxcb-cursor0 when any of its libraries is missing: check
# them all (ldd), install the Debian packages when root with apt-get, else print the apt-get line and stop.
# (A command such as `run.sh translate …` opens no window: nothing to check.)
case "${1:-}" in
  demo|train|translate|eval|export|figures) ;;
  *) .venv/bin/python -m attnviz.xcb_check --install || exit $? ;;
esac
exec .venv/bin/python main.py "$@"
