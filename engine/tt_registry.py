"""The registry of the transposition table's replacement schemes: one entry per scheme.

Plain Python (no numba, no numpy), so that the UCI option table can list the schemes
before the jitted core loads. Each entry declares a scheme once: its name (as the UCI combo
and the lab spell it), its levels (slots per bucket), what it compares (depth or subtree
size), its store policy (a POLICY_* of engine.tt_schemes, which implements them), whether a
retrieved position counts the nodes stored with it, and whether the thesis studies it. The
UCI option, the lab's scheme lists, the report and the tests derive theirs from REGISTRY;
engine.tt.new_table copies an entry's policy into the table's conf, so the kernels branch
on the policy, never on a scheme's name. Adding a scheme is one entry here (plus a policy
in engine.tt_schemes, if it needs a new one) and a row in the tests.
"""
import collections

# Store policies: what a store of a new position does when its bucket is full.
POLICY_KEEP_IMPORTANT = 0   # one level: the candidate replaces the entry if at least as important
POLICY_ALWAYS = 1           # one level: always replace
POLICY_NEVER = 2            # one level: never replace (unless time-stamped)
POLICY_KEEP_USED = 3        # one level: replace unless looked up during this search
POLICY_TWO_LEVEL = 4        # two levels, ordered by importance (the invariant above)
POLICY_AGE = 5              # two levels: replace the least depth - AGE_WEIGHT * age

# What "importance" means for a scheme.
BY_DEPTH = 0                # plies searched below the position
BY_SIZE = 1                 # nodes searched to obtain the result (subtree size)

AGE_WEIGHT = 8              # Age: one search of age costs as much as this many plies of depth

Scheme = collections.namedtuple("Scheme", "name levels importance policy hit_counts_size thesis")
Scheme.__doc__ = """A replacement scheme. `levels`: slots per bucket; `importance`: BY_DEPTH or
BY_SIZE; `policy`: a POLICY_*; `hit_counts_size`: a retrieved position counts the nodes stored
with it in the subtree size (else 1 node); `thesis`: one of the seven schemes of 2.7.1."""

REGISTRY = (
    Scheme("DEEP", 1, BY_DEPTH, POLICY_KEEP_IMPORTANT, False, True),
    Scheme("NEW", 1, BY_DEPTH, POLICY_ALWAYS, False, True),
    Scheme("OLD", 1, BY_DEPTH, POLICY_NEVER, False, True),
    Scheme("BIG1", 1, BY_SIZE, POLICY_KEEP_IMPORTANT, False, True),
    Scheme("BIGALL", 1, BY_SIZE, POLICY_KEEP_IMPORTANT, True, True),
    Scheme("TwoDEEP", 2, BY_DEPTH, POLICY_TWO_LEVEL, False, True),
    Scheme("TwoBig1", 2, BY_SIZE, POLICY_TWO_LEVEL, False, True),
    Scheme("Ancient", 1, BY_DEPTH, POLICY_KEEP_USED, False, False),
    Scheme("Age", 2, BY_DEPTH, POLICY_AGE, False, False),
)

SCHEME_NAMES = tuple(s.name for s in REGISTRY)
THESIS_SCHEMES = tuple(s.name for s in REGISTRY if s.thesis)
THESIS_TWO_LEVEL = tuple(s.name for s in REGISTRY if s.thesis and s.levels == 2)
THESIS_ONE_LEVEL = tuple(s.name for s in REGISTRY if s.thesis and s.levels == 1)


def scheme_index(name: str) -> int:
    """Index in REGISTRY of a scheme by name, case-insensitive (DEEP ... TwoBig1, Ancient,
    Age). Raises ValueError for an unknown name."""
    wanted = name.strip().upper()
    for index, scheme in enumerate(REGISTRY):
        if scheme.name.upper() == wanted:
            return index
    raise ValueError(f"unknown TT scheme {name!r}; one of {', '.join(SCHEME_NAMES)}")


DEFAULT_SCHEME = scheme_index("TwoBig1")
