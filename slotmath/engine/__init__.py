"""Exact figures of lines and scatters: reel strips, pay tables, the combination table, the
distribution of a spin's win, moments, session distributions and the cache registry."""
