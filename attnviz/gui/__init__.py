"""The Qt desktop application. Views draw numpy arrays; they never touch torch."""

from attnviz.gui.import_hook import keep_module_sources_uncached

keep_module_sources_uncached()  # before pyqtgraph and torch are imported: ~40 MB less resident
