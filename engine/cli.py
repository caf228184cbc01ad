"""The `twobig` command line (click). With no command it runs the UCI loop, so GUIs can
start `twobig` or `uci_main.py` directly. Heavy modules are imported inside the commands."""
import sys
import time

import click

from engine import __version__


@click.group(invoke_without_command=True)
@click.version_option(__version__, prog_name="twobig", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx):
    """TwoBig chess engine. Without a command: the UCI loop on stdin/stdout."""
    if ctx.invoked_subcommand is None:
        from engine.uci import main as uci_main
        uci_main()


@cli.command()
def uci():
    """Run the UCI loop (the default)."""
    from engine.uci import main as uci_main
    uci_main()


@cli.command()
@click.argument("depth", type=click.IntRange(0, 20))
@click.option("--fen", default=None, help="Position (default: the start position).")
@click.option("--divide", is_flag=True, help="Print the count below each legal move.")
@click.option("--no-bulk", is_flag=True, help="Make and unmake the last ply too.")
def perft(depth, fen, divide, no_bulk):
    """Count the leaves of the legal move tree to DEPTH."""
    from engine.board import Board, FenError
    try:
        board = Board(fen) if fen else Board()
    except FenError as exc:
        raise click.BadParameter(str(exc), param_hint="--fen")
    start = time.perf_counter()
    if divide:
        total = 0
        for move, count in board.divide(depth):
            click.echo(f"{move}: {count}")
            total += count
        click.echo("")
    else:
        total = board.perft(depth, bulk=not no_bulk)
    elapsed = time.perf_counter() - start
    click.echo(f"Nodes searched: {total}")
    click.echo(f"Time: {elapsed:.3f} s  ({total / max(elapsed, 1e-9):,.0f} nodes/s)", err=True)


@cli.command()
@click.option("--fen", default=None, help="Position (default: the start position).")
@click.option("--depth", type=click.IntRange(1, 120), default=None, help="Search depth.")
@click.option("--movetime", type=click.IntRange(1), default=None, help="Milliseconds.")
@click.option("--hash", "hash_mb", default=64, show_default=True, help="Table size in MB.")
@click.option("--profile", type=click.Choice(["play", "paper"]), default="play", show_default=True)
@click.option("--scheme", default="TwoBig1", show_default=True, help="TT replacement scheme.")
def search(fen, depth, movetime, hash_mb, profile, scheme):
    """Search one position and print each iteration, then the best move."""
    from engine.board import Board, FenError, move_to_uci
    from engine.driver import Limits
    from engine.session import Session
    from engine.tt import scheme_index
    from engine.tt_research import stats_dict
    try:
        board = Board(fen) if fen else Board()
        session = Session(profile=profile, hash_mb=hash_mb, scheme=scheme_index(scheme))
    except (FenError, ValueError) as exc:
        raise click.BadParameter(str(exc))
    if depth is None and movetime is None:
        depth = 10
    seconds = movetime / 1000 if movetime else None

    def show(it):
        score = f"mate {it.mate_in}" if it.mate_in is not None else f"{it.score / 100:+.2f}"
        bound = {"lowerbound": " (>=)", "upperbound": " (<=)"}.get(it.bound, "")
        pv = " ".join(move_to_uci(m) for m in it.pv)
        click.echo(f"depth {it.depth:>2}/{it.seldepth:<2} score {score}{bound:<5} "
                   f"nodes {it.nodes:>10,} time {it.seconds:7.2f}s  {pv}")

    result = session.search(board, Limits(depth=depth, hard_time=seconds),
                            show)
    click.echo(f"best move: {move_to_uci(result.best_move)}   "
               f"({result.nodes:,} nodes, {result.nodes / max(result.seconds, 1e-9):,.0f} nodes/s)")
    stats = stats_dict(session.table)
    click.echo("table: " + ", ".join(f"{k} {v}" for k, v in stats.items()))


@cli.command()
@click.argument("depth", required=False, type=click.IntRange(1, 30))
@click.option("--profile", type=click.Choice(["play", "paper"]), default="play", show_default=True)
def bench(depth, profile):
    """Search the bench positions to a fixed depth; the node total is the signature."""
    from engine.bench import BENCH_DEPTH, run_bench
    run_bench(depth or BENCH_DEPTH, profile=profile, echo=click.echo)


@cli.command()
@click.argument("epd", type=click.Path(exists=True, dir_okay=False))
@click.option("--movetime", default=1000, show_default=True, help="Milliseconds per position.")
@click.option("--hash", "hash_mb", default=64, show_default=True, help="Table size in MB.")
@click.option("--profile", type=click.Choice(["play", "paper"]), default="play", show_default=True)
def tactics(epd, movetime, hash_mb, profile):
    """Run a tactical EPD suite (bm/am) and report how many positions were solved."""
    from engine.tactics import run_suite

    def show(entry):
        click.echo(f"{'ok  ' if entry.solved else 'FAIL'} {entry.id:>10} {entry.expected:<22} "
                   f"got {entry.found:<8} depth {entry.depth}")

    results = run_suite(epd, movetime, hash_mb, profile, on_result=show)
    click.echo(f"solved {sum(r.solved for r in results)}/{len(results)} at {movetime} ms")


@cli.command()
def warm():
    """Compile every jitted kernel into the on-disk numba cache (run by `make install`);
    each step is named on stderr as it starts."""
    from engine.warmup import warm_all
    start = time.perf_counter()
    click.echo("compiling the kernels (once per source version; a minute or two)", err=True)
    warm_all(echo=lambda line: click.echo(line, err=True), ahead=True)
    # The package's bytecode too: Python skips writing it where PYTHONDONTWRITEBYTECODE is
    # set, and compiling the sources again took 40 ms of every start.
    import compileall
    from pathlib import Path
    compileall.compile_dir(str(Path(__file__).parent), quiet=1)
    click.echo(f"numba cache warm ({time.perf_counter() - start:.1f} s)")


def main():
    cli(prog_name="twobig")


if __name__ == "__main__":
    sys.exit(main())
