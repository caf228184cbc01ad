"""The reproduction of Breuker's thesis, chapter 2 (section 2.7): the test sets and the grid
of experiment cells (experiments, run by `python -m lab.thesis.tt_experiments`), its report
and plots (experiments_report), the one-table summary of every claim (reproduction), the
second game of the chapter solved on the engine's table policies (domineering), and where
the harness finds the repository's data (suites)."""
