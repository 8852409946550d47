"""Figures computed from the rules of a game: metrics for tuning, the workbench and the
PAR sheet, and the simulation that cross-checks the exact figures."""
