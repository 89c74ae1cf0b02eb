"""Provides training of the A2C-LSTM agent (needs the optional `train` extra: torch)."""

MAX_STEPS = 10**11
"""The most environment steps a run trains for or a benchmark times (the shipped model took a few 10^8): a config
or `--steps` beyond it is refused before anything starts."""
