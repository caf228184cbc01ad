#!/usr/bin/env python3
"""`stop` latency through a raw pipe: `go infinite`, wait, `stop`, time until `bestmove`.

    python -m lab.profiling.bench_stop [--engine .venv/bin/twobig] [--threads 1,2,4,8] [--samples 10]
"""
import statistics
import subprocess
import time

import click


def measure(command, threads, samples, think):
    engine = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def wait_for(prefix):
        while not engine.stdout.readline().startswith(prefix):
            pass

    send("uci")
    wait_for("uciok")
    send(f"setoption name Threads value {threads}")
    send("isready")
    wait_for("readyok")
    latencies = []
    for sample in range(samples):
        send("position startpos moves e2e4" if sample % 2 else "position startpos")
        send("go infinite")
        time.sleep(think)
        start = time.perf_counter()
        send("stop")
        wait_for("bestmove")
        latencies.append((time.perf_counter() - start) * 1000)
    send("quit")
    engine.wait()
    return latencies


@click.command()
@click.option("--engine", "command", default=".venv/bin/twobig", show_default=True)
@click.option("--threads", "thread_list", default="1,2,4,8", show_default=True)
@click.option("--samples", default=10, show_default=True)
@click.option("--think", default=0.7, show_default=True, help="seconds of go infinite before stop")
def main(command, thread_list, samples, think):
    for threads in (int(t) for t in thread_list.split(",")):
        latencies = measure(command, threads, samples, think)
        print(f"{threads:3d} threads: stop -> bestmove median {statistics.median(latencies):.2f} ms, "
              f"max {max(latencies):.2f} ms ({samples} samples)")


if __name__ == "__main__":
    main()
