"""lab/matches/cutechess_soak.py's tally: W/D/L from TwoBig's side and each engine's faults,
read from the Termination tags cutechess-cli writes (projects/lib/src/pgngame.cpp)."""
from lab.matches import cutechess_soak as soak

GAMES = """
[White "TwoBig"]
[Black "Stockfish"]
[Result "1-0"]

1. e4 e5 1-0

[White "Stockfish"]
[Black "TwoBig"]
[Result "1-0"]
[Termination "time forfeit"]

1. e4 e5 {Black loses on time} 1-0

[White "TwoBig"]
[Black "Stockfish"]
[Result "1-0"]
[Termination "illegal move"]

1. d4 d5 {Black makes an illegal move: a1a8} 1-0

[White "Stockfish"]
[Black "TwoBig"]
[Result "1/2-1/2"]
[Termination "adjudication"]

1. c4 c5 1/2-1/2

[White "TwoBig"]
[Black "Stockfish"]
[Result "0-1"]
[Termination "abandoned"]

1. Nf3 Nf6 {White disconnects} 0-1
"""


def test_tally_counts_results_and_blames_the_loser(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(GAMES)
    w, d, l, faults = soak.tally(pgn, "TwoBig")
    assert (w, d, l) == (2, 1, 2)
    assert dict(faults["TwoBig"]) == {"time forfeit": 1, "abandoned": 1}
    assert dict(faults["Stockfish"]) == {"illegal move": 1}
