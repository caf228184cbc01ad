"""The research harness: the thesis' experiments and their report, the test-data readers and
the tactical-suite runner. It uses the engine's public API only, and editing it does not
invalidate the engine's compiled kernels (their cache key covers the kernel modules alone)."""
