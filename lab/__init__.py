"""The research harness, run from the checkout (never installed), its tools as
`python -m lab.<group>.<tool>`: thesis/ (Breuker's experiments, their report and claims
table, domineering), network/ (Texel tuning, position labelling, the network's trainer, the
win/draw/loss fit), matches/ (match analysis and strength calibration), profiling/ (speed
and cost measurements of the engine's pieces), and statistics.py (scheme lists and the
paired bootstrap, used by the thesis' report today), at the top for any group. It uses the
engine's public API and, in matches/, scripts/match.py's referee; editing it does not
invalidate the engine's compiled kernels (their cache key covers the kernel modules alone)."""
