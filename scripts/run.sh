#!/usr/bin/env bash
# Set up (or refresh) .venv, then launch attnviz. Extra arguments go to the app.
source "$(dirname "$0")/_env.sh"
exec .venv/bin/python main.py "$@"
