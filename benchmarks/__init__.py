"""The benchmark runners and their results files (``benchmarks/results/``).

The library (``kgagents``) never imports this package (tests/test_layers.py checks it): benchmarks call the library's
jobs and scorers and add what a results file needs — data selection, ablation rows, provenance, files. Their
commands are the ``kgagents bench`` group, plugged into the CLI through the ``kgagents.cli`` entry point.
"""

from pathlib import Path

#: where ``kgagents bench`` commands write their results files by default
RESULTS_DIR = Path(__file__).resolve().parent / "results"
