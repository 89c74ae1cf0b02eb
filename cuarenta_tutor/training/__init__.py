"""Provides training of the A2C-LSTM agent (needs the optional `train` extra: torch)."""
