"""Provides possible-worlds analysis: every legal move of a position valued from one seat's view in sampled
worlds, continued by the agent (analyse.py, playout.py)."""

from .analyse import Analysis, MoveEval, Settings, analyse
from .game import analyse_game

__all__ = ["Analysis", "MoveEval", "Settings", "analyse", "analyse_game"]
