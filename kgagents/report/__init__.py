"""``kgagents report RUN``: a stored run as plots (PNG) and tables (terminal)."""

from kgagents.report.jobs import READERS, build_report, find_run, reader
from kgagents.report.model import CurvePoint, Prediction, Reference, RunReport, StageRow

__all__ = ["READERS", "CurvePoint", "Prediction", "Reference", "RunReport", "StageRow", "build_report", "find_run",
           "reader"]
