"""Dock panels; each lives in its own module and draws what it is given."""
