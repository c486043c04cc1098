"""What the generic docks (Compare, Explain, Heads, Positional) ask of the family of the model on show: its
layout names a views object (``SequenceLayout.panel_views``, a ``module:object`` imported when first asked), a
family's own module that draws its input its own way; a layout that names none gets :data:`NO_VIEWS` (the
sentence families: the docks' own drawing)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import numpy as np

    from attnviz.core.explain import Explanation
    from attnviz.core.layout import SequenceLayout
    from attnviz.figures.spec import AnyFigure, GridSpec
    from attnviz.session import SessionState


class FamilyViews:
    """A family's answers to the generic docks; these defaults: nothing of its own."""

    # the docks (gui/docks.py's names) it is shown in beyond what its layout's capabilities give: its own panel, and
    # the generic docks it has views for
    docks: frozenset[str] = frozenset()
    compare_listing: str | None = None  # which shipped models Compare lists beside it (None: the dock decides)
    corpus_of_its_own: bool = False  # the Heads dock maps its heads over the family's own corpora, not sentences

    def input_on_show(self, state: SessionState) -> Any | None:
        """The family's own input on show (an image …), or None: the docks show sentences."""
        return None

    def explain_figure(self, explanation: Explanation, state: SessionState) -> GridSpec | None:
        """The Explain dock's methods drawn over the input on show (None: the rows over the tokens)."""
        return None

    def positions_figure(self, table: np.ndarray, state: SessionState) -> AnyFigure | None:
        """The Positional dock's tab of the family's own (the table over its input's places), or None: no tab."""
        return None


NO_VIEWS = FamilyViews()


def views_of(layout: SequenceLayout | None) -> FamilyViews:
    """The views object ``layout`` names (:data:`NO_VIEWS` where it names none, or no model is open)."""
    named = layout.panel_views if layout is not None else None
    if named is None:
        return NO_VIEWS
    module, name = named.split(":")
    return cast(FamilyViews, getattr(importlib.import_module(module), name))
