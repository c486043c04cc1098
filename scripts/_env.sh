# Sourced by run.sh and test.sh: create or refresh the project's virtual environment in .venv.
# Re-installs only when pyproject.toml changed since the last install (a stamp file records its hash).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
       && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      PY="$candidate"; break
    fi
  done
fi
[ -n "$PY" ] || { echo "attnviz needs Python >= 3.11; none was found on PATH" >&2; exit 2; }
if [ ! -x .venv/bin/python ]; then
  echo "[attnviz] creating .venv with $("$PY" --version)" >&2
  "$PY" -m venv .venv
fi
stamp=".venv/.attnviz-installed"
want="$(sha1sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  echo "[attnviz] installing dependencies into .venv (first run takes a few minutes)" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
  echo "$want" > "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"
# The window's compiled catalogues (.qm, not committed): rebuilt whenever their .ts is newer
for ts in resources/i18n/*.ts; do
  [ -e "$ts" ] || continue
  qm="${ts%.ts}.qm"
  if [ ! -f "$qm" ] || [ "$ts" -nt "$qm" ]; then
    .venv/bin/pyside6-lrelease -silent "$ts" -qm "$qm" >&2 || echo "[attnviz] could not compile $ts: the app reads it directly" >&2
  fi
done
# The user guide that Help ▸ User guide opens (site/, not committed): rebuilt whenever a page of docs/ is newer
if [ ! -f site/index.html ] || [ -n "$(find docs mkdocs.yml scripts/mkdocs_hooks.py -newer site/index.html -print -quit)" ]; then
  .venv/bin/python -m mkdocs build --quiet >&2 \
    || echo "[attnviz] could not build the user guide (docs/ -> site/): its pages are in docs/" >&2
fi
