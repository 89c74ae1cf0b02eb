"""Provides the app-service layer: the game a person plays and reviews, as values (session, review, settings,
level). The screens (tui/) talk to this layer only; workers compute here, the UI thread applies."""
