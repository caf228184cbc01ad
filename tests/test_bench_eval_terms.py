"""lab/profiling/bench_eval_terms.py: the engine copies it measures switch off exactly one term."""
import json
import os
import subprocess
import sys

from lab.profiling import bench_eval_terms as script
from engine import eval as ev
from engine.board import Board

FENS = (
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r3q1kr/ppp5/3p2pQ/8/3PP1b1/5R2/PPP3P1/5RK1 w - - 0 1",        # white attacks the king
    "6k1/5p2/p5np/4B3/3P4/1PP1q3/P3r1QP/6RK w - - 0 1",            # black attacks the king
    "8/p1q2pkp/2Pr2p1/8/P3Q3/6P1/5P1P/2R3K1 w - - 0 1",
)

PRINT_TERMS = """
import json
from engine import eval as ev
from engine.board import Board
fens = json.loads(input())
print(json.dumps([[list(ev.side_terms(Board(f).P, Board(f).T, us)) for us in (0, 1)] for f in fens]))
"""


def test_variants_switch_off_one_term_each():
    rows = script.variants()
    names = list(ev.TERM_NAMES)
    assert script.term_names() == names
    assert ev.TERMS_ON == (True,) * len(names)          # the engine ships every term
    assert rows[0] == ("all terms", ev.TERMS_ON)
    for index, name in enumerate(names):
        label, switches = rows[1 + index]
        assert label == f"without {name}"
        assert [i for i, on in enumerate(switches) if not on] == [index]
    assert rows[-1] == ("material + PST only", (False,) * len(names))


def test_a_copy_with_a_term_off_computes_zero_for_it_and_the_same_for_the_rest(tmp_path):
    """Compiles one copy (the king-attack term off) and compares its side_terms with the
    shipped kernel's: the switched-off pair is zero, every other pair is unchanged."""
    off = list(ev.TERM_NAMES).index("king attack")
    switches = tuple(i != off for i in range(len(ev.TERM_NAMES)))
    folder = script.build_variant(tmp_path, switches)
    env = dict(os.environ, PYTHONPATH=str(folder), TWOBIG_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-P", "-c", PRINT_TERMS], input=json.dumps(FENS),
                         env=env, check=True, capture_output=True, text=True).stdout
    copied = json.loads(out)
    saw_king_attack = False
    for fen, copy_sides in zip(FENS, copied):
        board = Board(fen)
        for us in (0, 1):
            shipped = list(ev.side_terms(board.P, board.T, us))
            expected = list(shipped)
            saw_king_attack |= any(shipped[2 * off:2 * off + 2])
            expected[2 * off:2 * off + 2] = [0, 0]
            assert copy_sides[us] == expected, (fen, us)
    assert saw_king_attack, "no position here has a king attack: the test would prove nothing"
