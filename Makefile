# TwoBig: `make run` (install, warm the numba cache, start the UCI loop) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= auto

# OpenBench builds an engine with `make EXE=<name>` (no target): then the default goal
# writes a launcher at $(EXE) instead of starting the UCI loop.
ifdef EXE
.DEFAULT_GOAL := exe
endif

.PHONY: exe soak run install test test-slow bench bench-tt perft tactics experiments experiments-quick experiments-deps network opponents match-selfplay gauntlet cutechess-gauntlet clean

run: install
	@$(BIN)/twobig

# Create the venv, install TwoBig with its test extras, then compile every jitted kernel
# once so that engines started later (several at once under cutechess) only read the cache.
install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/twobig warm
	touch $(STAMP)

# `make EXE=path`: a launcher at `path` for a TwoBig installed (not editable) into its own
# venv under EXE_ROOT, keyed by the sources, so the launcher keeps working after the source
# folder is deleted (OpenBench builds in a temporary folder). The kernels are compiled there.
EXE_ROOT ?= $(HOME)/.cache/twobig/engines
EXE_ID   := $(shell cat pyproject.toml engine/*.py engine/*.npz 2>/dev/null | sha1sum | cut -c1-12)
EXE_VENV := $(EXE_ROOT)/$(EXE_ID)
exe:
	test -f $(EXE_VENV)/.installed || ( rm -rf $(EXE_VENV) && $(PYTHON) -m venv $(EXE_VENV) \
		&& $(EXE_VENV)/bin/python -m pip install --quiet . && $(EXE_VENV)/bin/twobig warm \
		&& touch $(EXE_VENV)/.installed )
	printf '#!/bin/sh\nexec "%s" "$$@"\n' "$(EXE_VENV)/bin/twobig" > "$(EXE)"
	chmod +x "$(EXE)"

test: install
	$(BIN)/python -m pytest -n $(JOBS) -q

test-slow: install
	$(BIN)/python -m pytest -n $(JOBS) -q -m slow

# The speed table: each figure beside another engine's from the same run (Toga II, Stockfish:
# `make opponents`), the ratio and the target, headed by the CPU model.
bench: install
	$(BIN)/python scripts/bench.py

bench-tt: install
	$(BIN)/python scripts/bench_tt.py

# The thesis' experiments (matplotlib, tqdm and dask.distributed are only needed here). The
# cells run on a local Dask cluster (EXPERIMENT_JOBS workers, default one per core), or on
# the cluster of SCHEDULER: `make experiments SCHEDULER=tcp://HOST:8786`.
EXPERIMENT_JOBS ?=
SCHEDULER       ?=
EXPERIMENT_ARGS := $(if $(EXPERIMENT_JOBS),--jobs $(EXPERIMENT_JOBS)) $(if $(SCHEDULER),--scheduler $(SCHEDULER))

experiments-deps: install
	$(BIN)/python -m pip install --quiet -e '.[test,experiments]'

experiments-quick: experiments-deps
	$(BIN)/python -m lab.thesis.tt_experiments --quick $(EXPERIMENT_ARGS)

experiments: experiments-deps
	$(BIN)/python -m lab.thesis.tt_experiments $(EXPERIMENT_ARGS)

# Retrain the evaluation network from nothing into engine/nnue_net.npz (40 minutes on two
# cores; Stockfish labels the positions: make opponents). NETWORK_ARGS="--files 2
# --epochs 1 --out /tmp/net.npz" is a quick check; docs/evaluation.md has the steps.
NETWORK_ARGS ?=
network: experiments-deps
	$(BIN)/python -m lab.network.rebuild $(NETWORK_ARGS)

# Match opponents (Debian engines and Sunfish); see scripts/match.py.
opponents:
	bash scripts/opponents.sh

# A short self-play check at 1 s + 0.01 s (no time forfeits expected).
match-selfplay: experiments-deps
	$(BIN)/python scripts/match.py --engine1 $(BIN)/twobig --engine2 $(BIN)/twobig \
		--games 20 --tc 1+0.01 --pgn selfplay.pgn

# The gauntlet (docs/strength.md): GAMES games at 10 s + 0.1 s against each opponent (run
# `make opponents` first), one row per match appended to the gauntlet log at the end of
# docs/strength.md, games in docs/gauntlet/ (xz -9 them before committing). CONCURRENCY
# games at once (one per two cores is fair). Every engine gets one thread and 16 MB of hash
# (Glaurung defaults to two threads).
GAMES       ?= 100
CONCURRENCY ?= 1
GAUNTLET_ELO ?= 2400 2200 2100
# Adjudication (off unless set), e.g. ADJUDICATE="--draw-adjudication 40 8 10 --resign-adjudication 4 700"
ADJUDICATE ?=
MATCH := $(BIN)/python scripts/match.py --engine1 $(BIN)/twobig --name1 TwoBig --games $(GAMES) \
	--tc 10+0.1 --concurrency $(CONCURRENCY) --results docs/strength.md --option1 Hash=16 \
	--option1 Threads=1 $(ADJUDICATE)
gauntlet: experiments-deps
	mkdir -p docs/gauntlet
	for elo in $(GAUNTLET_ELO); do \
		$(MATCH) --engine2 /usr/games/stockfish --name2 Stockfish --option2 UCI_LimitStrength=true \
			--option2 UCI_Elo=$$elo --option2 Threads=1 --option2 Hash=16 \
			--pgn docs/gauntlet/stockfish$$elo.pgn || exit 1; done
	$(MATCH) --engine2 /usr/games/glaurung --name2 Glaurung --option2 Threads=1 --option2 Hash=16 \
		--pgn docs/gauntlet/glaurung.pgn
	$(MATCH) --engine2 /usr/games/phalanx --name2 Phalanx --protocol2 xboard --pgn docs/gauntlet/phalanx.pgn
	$(MATCH) --engine2 .opponents/sunfish/bin/sunfish-uci --name2 Sunfish --pgn docs/gauntlet/sunfish.pgn

# The cutechess-cli rows of docs/strength.md: TwoBig against OPPONENT (cutechess-cli's
# -engine arguments) over ROUNDS opening pairs at TC, the same openings (-srand 12),
# adjudication and options as those rows; cutechess-cli prints the score and Elo, the games
# go to CUTECHESS_PGN. cutechess-cli is built by hand (README, "cutechess-cli").
CUTECHESS     ?= cutechess-cli
OPPONENT      ?= name=Ethereal12 cmd=/usr/games/ethereal-chess proto=uci option.Hash=16 option.Threads=1
ROUNDS        ?= 100
TC            ?= 10+0.1
CUTECHESS_PGN ?= cutechess_gauntlet.pgn
cutechess-gauntlet: install
	$(CUTECHESS) -tournament gauntlet \
		-engine name=TwoBig cmd=$(abspath $(BIN))/twobig proto=uci option.Hash=16 option.Threads=1 \
		-engine $(OPPONENT) -each tc=$(TC) \
		-openings file=data/books/8moves_v3.pgn format=pgn order=random -repeat -games 2 \
		-rounds $(ROUNDS) -concurrency $(CONCURRENCY) -srand 12 \
		-draw movenumber=40 movecount=8 score=10 -resign movecount=4 score=700 \
		-ratinginterval 10 -pgnout $(CUTECHESS_PGN)

# Soak (docs/reliability.md): TwoBig against Stockfish (any UCI_Elo; `make opponents` installs it)
# at 1 s + 0.01 s with one game per core, the same with two per core (overloaded), and at
# 10 s + 0.1 s. Each row is appended to the soak log at the end of docs/reliability.md,
# the games go to docs/soak/ (xz -9 them before committing).
SOAK_FAST ?= 1000
SOAK_OVERLOAD ?= 200
SOAK_SLOW ?= 200
SOAK_CORES ?= $(shell nproc)
SOAK := $(BIN)/python scripts/match.py --engine1 $(BIN)/twobig --name1 TwoBig \
	--engine2 /usr/games/stockfish --name2 Stockfish --option2 UCI_LimitStrength=true \
	--option2 UCI_Elo=1800 --option2 Threads=1 --option2 Hash=16 --option1 Hash=16 \
	--results docs/reliability.md
soak: experiments-deps
	mkdir -p docs/soak
	$(SOAK) --games $(SOAK_OVERLOAD) --tc 1+0.01 --concurrency $$(( 2 * $(SOAK_CORES) )) --pgn docs/soak/overload.pgn
	$(SOAK) --games $(SOAK_FAST) --tc 1+0.01 --concurrency $(SOAK_CORES) --pgn docs/soak/fast.pgn
	$(SOAK) --games $(SOAK_SLOW) --tc 10+0.1 --concurrency $(SOAK_CORES) --pgn docs/soak/slow.pgn

tactics: install
	$(BIN)/twobig tactics data/tactical/wacnew.epd --movetime 1000
	$(BIN)/twobig tactics data/tactical/bk.epd --movetime 1000

perft: install
	$(BIN)/python scripts/perft_suites.py

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
