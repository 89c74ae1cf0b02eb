"""Provides possible-worlds analysis: every legal move of a position valued from one seat's view in sampled
worlds, continued by the agent (analyse.py, playout.py)."""

from .analyse import STANDARD, Analysis, MoveEval, Settings, analyse, verdict
from .game import analyse_game

__all__ = ["STANDARD", "Analysis", "MoveEval", "Settings", "analyse", "analyse_game", "verdict"]
