"""Provides playing a game: the table (the one match loop) and the session of a person against the agent."""
