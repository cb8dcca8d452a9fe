"""Pure scorers: OAEI precision/recall/F1 (:mod:`oaei`), entity-alignment ranks (:mod:`ea`), KGQA answers
(:mod:`qa`), Text2KGBench (:mod:`text2kgbench`) and The World Avatar slots (:mod:`twa`).

Why a package of their own: a score must be computable from predictions and a reference alone, so these modules
never touch the graph (tests/test_layers.py checks it); the jobs, the reports and the benchmarks all call them.
"""
