"""Provides the arena: duplicate-deal matches between two policies (match.py), their figures and report
(summary.py), and the statistics behind them (stats.py)."""

from .match import GameResult, SideTally, play_game, run_match
from .summary import MatchSummary, SideSummary, format_summary, summarize

__all__ = ["GameResult", "SideTally", "play_game", "run_match", "MatchSummary", "SideSummary", "format_summary",
           "summarize"]
