"""The vision family's answers to the generic docks (:mod:`attnviz.gui.panels.family_views`), named by the image
layout's ``panel_views``: Compare lists the image models, Heads maps a folder of images, Explain draws its methods
over the image on the patch grid, and Positional adds the learned positions on the patch grid (the ViT paper's
Figure 7, centre)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attnviz.gui.panels.family_views import FamilyViews

if TYPE_CHECKING:
    import numpy as np

    from attnviz.core.explain import Explanation
    from attnviz.core.layout import Picture
    from attnviz.figures.spec import AnyFigure, GridSpec
    from attnviz.session import SessionState


class ImageViews(FamilyViews):
    """An image model's views in the generic docks."""

    docks = frozenset({"image", "computation", "heads", "explain", "compare"})
    compare_listing = "images"
    corpus_of_its_own = True

    def input_on_show(self, state: SessionState) -> Picture | None:
        source = state.shown_source
        return source.picture if source is not None else None

    def explain_figure(self, explanation: Explanation, state: SessionState) -> GridSpec | None:
        from attnviz.figures.explain import image_rows_figure

        picture = self.input_on_show(state)
        return image_rows_figure(explanation, picture) if picture is not None else None

    def positions_figure(self, table: np.ndarray, state: SessionState) -> AnyFigure | None:
        """The patches' learned positions against each other on the patch grid; None without an image, or for a
        table that is not one row per position."""
        from attnviz.figures.image import position_similarity

        picture = self.input_on_show(state)
        patches = picture.grid[0] * picture.grid[1] if picture is not None else -1
        if picture is None or not patches <= table.shape[0] <= picture.specials + patches:
            return None
        return position_similarity(table, picture)


IMAGE_VIEWS = ImageViews()
