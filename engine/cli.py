"""The `twobig` command line (click). With no command it runs the UCI loop, so GUIs can
start `twobig` or `uci_main.py` directly. Heavy modules are imported inside the commands."""
import sys
import time

import click


@click.group(invoke_without_command=True)
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
def warm():
    """Compile every jitted kernel into the on-disk numba cache (run by `make install`)."""
    from engine.warmup import warm_all
    start = time.perf_counter()
    warm_all()
    click.echo(f"numba cache warm ({time.perf_counter() - start:.1f} s)")


def main():
    cli(prog_name="twobig")


if __name__ == "__main__":
    sys.exit(main())
