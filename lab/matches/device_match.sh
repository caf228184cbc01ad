#!/bin/bash
# Self-play SPRT games on a many-core machine for a fixed time: a candidate engine tree
# against a base tree, both copied (engine/, lab/, uci_main.py) under .dev/ with python-chess
# beside them (.dev/site), since the machine may have numba and click but not python-chess.
#
#   mkdir -p .dev/site && cp -r <cand>/{engine,lab,uci_main.py} .dev/cand  (likewise .dev/base)
#   cp -r .venv/lib/python3*/site-packages/chess .dev/site/
#   bash lab/matches/device_match.sh python3 510 15 85 "$OUT"     # python, seconds, games at once,
#                                                             # opening seed, output folder
# Both trees are compiled first (each keeps its own .numba_cache), `bench` prints their
# signatures (compare them with the ones found here: the same engines), then scripts/match.py
# plays until the time is up; the PGN (OUTDIR/cand.pgn) is written game by game.
PY=$1; SECS=$2; CONC=$3; SEED=$4; OUTD=$5
start=$(date +%s)
export PYTHONPATH=$PWD/.dev/site${PYTHONPATH:+:$PYTHONPATH}
$PY -c "import numba, numpy, chess, click; print('numba', numba.__version__, 'numpy', numpy.__version__, 'chess', chess.__version__)"
nproc
(cd .dev/cand && $PY uci_main.py warm >/dev/null 2>&1; echo cand warm $?) &
(cd .dev/base && $PY uci_main.py warm >/dev/null 2>&1; echo base warm $?) &
wait
echo warmed after $(( $(date +%s) - start )) s
(cd .dev/cand && $PY uci_main.py bench 2>&1 | tail -1) &
(cd .dev/base && $PY uci_main.py bench 2>&1 | tail -1) &
wait
left=$(( SECS - ($(date +%s) - start) ))
echo match for $left s
PYTHONUNBUFFERED=1 timeout $left $PY scripts/match.py --engine1 "$PY .dev/cand/uci_main.py" --name1 Cand \
  --engine2 "$PY .dev/base/uci_main.py" --name2 Base --option1 Hash=16 --option2 Hash=16 \
  --tc 5+0.05 --concurrency $CONC --games 3000 --draw-adjudication 40 8 10 \
  --resign-adjudication 4 700 --seed $SEED --pgn $OUTD/cand.pgn > $OUTD/match.log 2>&1
echo match rc $?
grep -c '^\[Result' $OUTD/cand.pgn
