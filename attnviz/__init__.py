"""attnviz: see attention."""

__version__ = "0.1.0"
