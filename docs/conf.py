"""Sphinx configuration of the slotmath documentation site (``make docs``).

The pages are the Markdown files of this folder (MyST), the API reference is
generated from the numpydoc docstrings (autosummary), and the example
notebooks (``examples/*.ipynb`` link to ``notebooks/``) are executed at build
time by myst-nb, with their outputs cached in ``_build/.jupyter_cache`` so a
rebuild runs only notebooks that changed.  The build needs no network.
"""

from __future__ import annotations

from pathlib import Path

import slotmath

DOCS = Path(__file__).resolve().parent

project = "slotmath"
author = "the slotmath developers"
copyright = "2026, the slotmath developers"
version = release = slotmath.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]

# ------------------------------------------------------------------- MyST
# GitHub-style anchors, so the pages' in-page links (#1-finding-a-game) resolve.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "dollarmath"]
# The PAR sheet notebook writes each report section as a level-1 heading in
# its outputs (the report's layout); inside a page they follow its own title.
suppress_warnings = ["myst.header"]

# ------------------------------------------------------------ notebooks
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_merge_streams = True
# the tuning workbench is a live widget: the page shows a picture of it
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]

# ------------------------------------------------------------ API reference
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": False}
autodoc_typehints = "signature"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# ------------------------------------------------------------ HTML
html_theme = "pydata_sphinx_theme"
html_title = f"slotmath {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
# no web fonts, no analytics, no version switcher: the site works offline
html_show_sourcelink = False


def setup(app):
    """Show ``csv`` code blocks (game-format.md) as plain text: Pygments has no CSV lexer."""
    from pygments.lexers.special import TextLexer

    app.add_lexer("csv", TextLexer)
