"""Game files in and out: reading and validating (:mod:`.gamefile`), the
games search path (:mod:`.search`), writing (:mod:`.gamewriter`) and atomic file writes
(:mod:`.files`).  Imports nothing of the analysis."""
