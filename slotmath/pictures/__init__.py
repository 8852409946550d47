"""Pictures of reel windows (matplotlib, imported when drawing)."""
