#!/usr/bin/env bash
# Put attnviz in the desktop's application launcher, for this user only (no root):
#     bash install-desktop.sh              (from the app folder, or packaging/ after a build)
#     bash install-desktop.sh --uninstall
# Writes ~/.local/share/applications/attnviz.desktop and the icon under ~/.local/share/icons.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
entry="$data/applications/attnviz.desktop"
icon="$data/icons/hicolor/scalable/apps/attnviz.svg"
if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$entry" "$icon"
  echo "removed $entry and $icon"
  exit 0
fi
if [ -x "$here/attnviz" ]; then app="$here"                      # inside the built app folder
elif [ -x "$here/../dist/attnviz/attnviz" ]; then app="$(cd "$here/../dist/attnviz" && pwd)"
else
  echo "install-desktop.sh: no built app found next to it or in dist/attnviz (run bash packaging/build.sh)" >&2
  exit 2
fi
svg="$app/_internal/resources/attnviz.svg"
[ -f "$svg" ] || svg="$here/../resources/attnviz.svg"
desktop_file="$here/attnviz.desktop"
[ -f "$desktop_file" ] || { echo "install-desktop.sh: attnviz.desktop is missing beside it" >&2; exit 2; }
mkdir -p "$(dirname "$entry")" "$(dirname "$icon")"
cp "$svg" "$icon"
sed "s|@EXEC@|\"$app/attnviz\"|" "$desktop_file" > "$entry"
chmod 644 "$entry"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$(dirname "$entry")" || true
echo "installed $entry (runs $app/attnviz) and $icon"
