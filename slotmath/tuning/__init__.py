"""Reel tuning: targets, the reel space, strip layout, the solver and sensitivities."""
