"""Where the engine's time goes: what a numba call costs (bench_call_cost), checkouts and
evaluation versions compared in alternating rounds (bench_checkouts, bench_eval_speed),
each evaluation term's and each node piece's cost (bench_eval_terms, bench_node_costs), the
paper profile's branches (bench_profiles), `stop` latency and the first searches after
`readyok` (bench_stop, bench_first_search), and a `perf` profile by jitted function
(profile_search). The benchmarks a user runs stay in scripts/."""
