"""Pictures of windows: one screen, or a sequence of screens (nudges, respins,
cascades) as a strip of small panels.

A window is an array of symbol names or indices with shape (reels, rows),
``window[r, k]`` the symbol of reel ``r`` in row ``k`` (row 0 on top).
Cells take the symbol's ``color`` and ``label`` from the game file
(defaults: a fixed palette and the symbol name).  Any game can use these:
the rules module turns its steps into :class:`Frame` objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from slotmath.io.terminal import terminal_text

PALETTE = (
    "#e45756",
    "#f58518",
    "#eeca3b",
    "#54a24b",
    "#4c78a8",
    "#b279a2",
    "#9d755d",
    "#72b7b2",
    "#ff9da6",
    "#bab0ac",
    "#88d27a",
    "#fcbf49",
)


class Frame(NamedTuple):
    """One panel: a window, its caption and the cells to outline.

    ``highlight`` is a boolean (reels, rows) array or None; ``marks`` an
    optional (reels, rows) array of short strings drawn in the cell corner.
    """

    window: np.ndarray
    caption: str = ""
    highlight: np.ndarray | None = None
    marks: np.ndarray | None = None


def plain_label(text) -> str:
    """``text`` (a game file's name or label) drawn as plain text by
    matplotlib: ``$`` escaped (no mathtext), control and bidi characters
    shown escaped."""
    return terminal_text(text).replace("$", r"\$")


def symbol_style(game, symbol) -> tuple:
    """(face colour, label, text colour) of a symbol given by name or index."""
    sym = game.symbols[symbol] if isinstance(symbol, (int, np.integer)) else game.symbol(symbol)
    i = game.symbol_index[sym.name]
    face = symbol_colours(game)[i]
    label = plain_label(sym.label or sym.name)
    r, g, b = _rgb(face)
    text = "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "#ffffff"
    return face, label, text


def symbol_colours(game) -> list:
    """Face colour of every symbol (by index), each its own: a blank's
    declared colour or light grey; the colours the game file declares; then
    the :data:`PALETTE` colours no symbol took, then evenly spaced hues."""
    from colorsys import hls_to_rgb

    out: list = [None] * len(game.symbols)
    used = {s.color.lower() for s in game.symbols if s.color}
    spare = [c for c in PALETTE if c.lower() not in used]
    k = 0
    for i, sym in enumerate(game.symbols):
        if sym.color:
            out[i] = sym.color
        elif sym.kind == "blank":
            out[i] = "#f4f4f4"
        elif spare:
            out[i] = spare.pop(0)
        else:  # more symbols than the palette: hues around the circle
            r, g, b = hls_to_rgb((0.13 + 0.382 * k) % 1.0, 0.55, 0.6)
            out[i] = f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
            k += 1
    return out


def _rgb(color) -> tuple:
    from matplotlib.colors import to_rgb

    return to_rgb(color)


def draw_window(game, window, ax=None, highlight=None, caption: str = "", marks=None):
    """Draw one window on ``ax`` (a new figure when None); returns the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    window = np.asarray(window, dtype=object)
    R, H = window.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(0.9 * R + 0.4, 0.9 * H + 0.6))
    for r in range(R):
        for k in range(H):
            face, label, text = symbol_style(game, window[r, k])
            on = highlight is not None and bool(highlight[r, k])
            ax.add_patch(
                FancyBboxPatch(
                    (r + 0.06, H - 1 - k + 0.06),
                    0.88,
                    0.88,
                    boxstyle="round,pad=0,rounding_size=0.08",
                    facecolor=face,
                    edgecolor="#111111" if on else "#999999",
                    linewidth=2.6 if on else 0.8,
                )
            )
            size = 11 if len(label) <= 3 else (8 if len(label) <= 6 else 6.5)
            ax.text(
                r + 0.5,
                H - 1 - k + 0.5,
                label,
                ha="center",
                va="center",
                fontsize=size,
                color=text,
                fontweight="bold",
            )
            if marks is not None and marks[r, k]:
                ax.text(
                    r + 0.9,
                    H - 1 - k + 0.88,
                    str(marks[r, k]),
                    ha="right",
                    va="top",
                    fontsize=6.5,
                    color=text,
                )
    ax.set_xlim(0, R)
    ax.set_ylim(0, H)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    if caption:
        ax.set_title(plain_label(caption), fontsize=8)
    return ax


def draw_frames(game, frames: Sequence[Frame], ncols: int = 4, cell: float = 0.55, title: str = ""):
    """Draw a sequence of frames as a grid of panels; returns the figure."""
    import matplotlib.pyplot as plt

    frames = list(frames)
    if not frames:
        raise ValueError("no frames to draw")
    R, H = np.asarray(frames[0].window).shape
    ncols = max(1, min(ncols, len(frames)))
    nrows = -(-len(frames) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, squeeze=False, figsize=(ncols * (R * cell + 0.5), nrows * (H * cell + 0.8))
    )
    for ax in axes.ravel()[len(frames) :]:
        ax.axis("off")
    # the grid may have more cells than frames (the spare ones are blanked above)
    for ax, f in zip(axes.ravel(), frames, strict=False):
        draw_window(game, f.window, ax=ax, highlight=f.highlight, caption=f.caption, marks=f.marks)
    if title:
        fig.suptitle(plain_label(title), fontsize=10)
    fig.tight_layout()
    return fig
