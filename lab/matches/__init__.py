"""Matches measured and read back: two matches compared opening by opening
(compare_matches), the clock each engine used (time_usage), the referee's own delay per move
(referee_latency), where the lost games were lost (loss_profile), a soak refereed by
cutechess-cli (cutechess_soak), strength settings rated against Stockfish
(strength_calibration), and self-play games on a many-core machine (device_match.sh).
scripts/match.py plays the games; these tools run it or import its referee and Elo figures."""
