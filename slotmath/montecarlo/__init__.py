"""Sampling machinery: the round sampler type, the run loop (chunks, processes, Dask),
statistics of a run, convergence against exact figures and the compiled line sampler."""
