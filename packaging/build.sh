#!/usr/bin/env bash
# Build the standalone one-folder app into dist/attnviz/ and its archive dist/attnviz-linux-x86_64.tar.gz.
#     bash packaging/build.sh
# Sets up .venv (as scripts/run.sh does) with PyInstaller, runs packaging/attnviz.spec, removes what the
# app never uses (each piece and what it saved: packaging/README.md), strips symbols, prints the sizes.
source "$(dirname "$0")/../scripts/_env.sh"
if ! .venv/bin/python -c "import PyInstaller" 2>/dev/null; then
  echo "[attnviz] installing PyInstaller into .venv" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[packaging]"
fi
# The user guide travels in the bundle as offline HTML (Help ▸ User guide opens site/index.html): built strictly
# here, whatever site/ held before
.venv/bin/python -m mkdocs build --strict --quiet
rm -rf dist/attnviz build/pyinstaller
.venv/bin/python -m PyInstaller packaging/attnviz.spec --noconfirm --distpath dist --workpath build/pyinstaller \
  --log-level ERROR
app=dist/attnviz
internal=$app/_internal
before=$(du -sm "$app" | cut -f1)

# Never used by attnviz (see packaging/README.md for what each saved and why it is safe).
prune=(
  torch/test torch/include torch/share/cmake
  torch/lib/libtorchbind_test.so torch/lib/libjitbackend_test.so torch/lib/libbackend_with_compiler.so
  torch/lib/libaoti_custom_ops.so
  PySide6/Qt/plugins/egldeviceintegrations PySide6/Qt/plugins/platformthemes/libqgtk3.so
  PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so.6 PySide6/Qt/lib/libQt6EglFsKmsSupport.so.6
  PySide6/Qt/plugins/platforms/libqeglfs.so PySide6/Qt/plugins/platforms/libqlinuxfb.so
  PySide6/Qt/plugins/platforms/libqvnc.so PySide6/Qt/plugins/platforms/libqminimalegl.so
  PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so
)
for piece in "${prune[@]}"; do
  rm -rf "${internal:?}/$piece"
done
# Qt's own translations: only the Chinese of its dialogs and buttons (the interface speaks English and Chinese)
find "$internal/PySide6/Qt/translations" -type f ! -name 'qtbase_zh_CN.qm' -delete 2>/dev/null || true
find "$internal" -xtype l -delete  # links PyInstaller made to what was just removed
# torch/bin: C++ test programs and protoc; torch's import checks that torch_shm_manager is there.
find "$internal/torch/bin" -mindepth 1 ! -name torch_shm_manager -exec rm -rf {} +
# Symbols: torch's and Python's libraries ship their symbol tables; the dynamic linker does not need them.
# (Never strip the auditwheel-patched libraries in *.libs/: numpy's OpenBLAS would no longer load.)
if command -v strip >/dev/null 2>&1; then
  strip --strip-unneeded "$internal"/torch/lib/libtorch_cpu.so "$internal"/torch/lib/libtorch_python.so \
    "$internal"/libpython3*.so*
else
  echo "[attnviz] strip (binutils) not found: symbols kept, the folder is about 100 MB larger" >&2
fi

cp packaging/install-desktop.sh packaging/attnviz.desktop "$app/"  # desktop integration travels with it
after=$(du -sm "$app" | cut -f1)
if command -v zstd >/dev/null 2>&1; then
  archive=dist/attnviz-linux-x86_64.tar.zst
  # -19 with a 128 MB window (plain `zstd -d` / `tar --zstd` unpack it): 242 MiB, against 262 at -12
  # (2026-11-24, with the fifth checkpoint); it costs about 3 minutes on 2 cores instead of seconds.
  tar -C dist -cf - attnviz | zstd -q -19 --long=27 -T0 -o "$archive" -f
else
  archive=dist/attnviz-linux-x86_64.tar.gz
  tar -C dist -czf "$archive" attnviz
fi
echo "dist/attnviz: ${after} MB (${before} MB before pruning and stripping); $archive: $(du -sm "$archive" | cut -f1) MB"
