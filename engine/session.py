"""One way to start a search: a profile and a table in, `Result`s out.

The facade, the command line, bench, the lab's experiments and tactics runner and the
benchmark scripts all search through the one class below (built with a profile, a table
size and a scheme, then asked to search a board within limits), so the searcher, the table
and the profile are wired together in this one place.
"""
from typing import Callable, Optional

from engine import tt as ttmod
from engine.tt_layout import C_AGING
from engine.tt_research import set_open_choices, set_table_use
from engine.driver import Iteration, Limits, Result, Searcher
from engine.memory import physical_memory_mb, touch_pages
from engine.search import K_HORIZON, K_QNODES, PROFILES


class Session:
    """A searcher with its profile and its transposition table.

    The table is sized by `hash_mb` (UCI Hash) or `positions` (the thesis' experiments);
    `use` is one of engine.tt_research.TABLE_USES ("none" searches without a table);
    `distinct_keys` > 0 counts the distinct keys stored (experiments; see engine.tt_research);
    `pv_plies` = n in 1..5 stores an n-ply line per entry, which the paper profile follows
    (thesis 2.7.3; see engine.search). `choices` sets what the thesis leaves open
    (engine.tt_research.OPEN_CHOICES, e.g. ties_new=False)."""

    def __init__(self, profile: str = "play", hash_mb: Optional[float] = None,
                 positions: Optional[int] = None, scheme: int = ttmod.DEFAULT_SCHEME,
                 aging: bool = True, key_bits: int = 64, use: str = "full",
                 distinct_keys: int = 0, pv_plies: int = 1,
                 choices: Optional[dict] = None):
        if hash_mb is None and positions is None:
            hash_mb = 16
        self.searcher = Searcher()
        self.profile = profile
        self._table_args = dict(mb=hash_mb, positions=positions, scheme=scheme, aging=aging,
                                key_bits=key_bits, distinct_keys=distinct_keys,
                                pv_plies=pv_plies)
        self._use = use
        self._choices = dict(choices or {})
        self.table = None
        self.new_table()

    @property
    def profile(self) -> str:
        return self._profile

    @profile.setter
    def profile(self, name: str) -> None:
        if name not in PROFILES:
            raise ValueError(f"unknown search profile {name!r}; one of {', '.join(PROFILES)}")
        self._profile = name
        self.searcher.profile = PROFILES[name]

    def new_table(self) -> None:
        """A fresh, empty table of the same configuration."""
        self.table = ttmod.new_table(**self._table_args)
        set_table_use(self.table, self._use)
        set_open_choices(self.table, **self._choices)
        touch_pages(self.table)

    def resize(self, hash_mb: float, scheme: Optional[int] = None,
               aging: Optional[bool] = None) -> None:
        """A new table of `hash_mb` MB (and optionally another scheme or time stamping).
        MemoryError, with the table and its configuration left as they were, when the
        memory cannot be had (more than the machine has, or refused)."""
        machine = physical_memory_mb()
        if machine is not None and hash_mb > machine:
            raise MemoryError(f"{hash_mb} MB is more than the machine's {machine} MB")
        previous = dict(self._table_args)
        self._table_args.update(mb=hash_mb, positions=None)
        if scheme is not None:
            self._table_args["scheme"] = scheme
        if aging is not None:
            self._table_args["aging"] = aging
        try:
            self.new_table()
        except MemoryError:
            self._table_args = previous
            raise

    def set_threads(self, threads: int) -> None:
        """Search threads for the play profile (the paper profile always uses one)."""
        self.searcher.set_threads(threads)

    def set_aging(self, aging: bool) -> None:
        self._table_args["aging"] = aging
        self.table.conf[C_AGING] = 1 if aging else 0

    def search(self, board, limits: Limits,
               on_iteration: Callable[[Iteration], None] = None,
               new_generation: bool = True, keep_stop: bool = False) -> Result:
        """Search `board` (restored on return) within `limits` on the table it owns.
        keep_stop: a `stop` given since the searcher's `clear_stop()` counts."""
        return self.searcher.run(board, self.table, limits, on_iteration, new_generation,
                                 keep_stop)

    def stop(self) -> None:
        self.searcher.stop()

    @property
    def qnodes(self) -> int:
        """Quiescence nodes of the last search."""
        return int(self.searcher.S.ctrl[K_QNODES])

    @property
    def horizon_leaves(self) -> int:
        """Full-width calls at depth 0 in the last search: with the interior nodes
        (nodes - qnodes) they make the thesis' node count, which has no quiescence."""
        return int(self.searcher.S.ctrl[K_HORIZON])
