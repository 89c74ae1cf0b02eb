"""Provides the settings dialog: the language of the tutor and the tutor mode, each kept as soon as it is chosen.

A new language shows at once on every screen (CuarentaApp.retranslate), with no restart: the screens make their words
when they draw them.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Select, Static, Switch

from ..i18n import LANGUAGES, N_, NAMES, _, language, set_language


class SettingsScreen(ModalScreen[None]):
    """The language (each by its own name, as every program offers them) and the tutor mode of new games."""

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen #tutor-row { height: auto; }
    SettingsScreen #tutor-note { width: 1fr; padding: 0 1; }
    SettingsScreen #settings-keys { color: $text-muted; margin-top: 1; }
    """
    AUTO_FOCUS = "#language"
    BINDINGS = [Binding("escape", "app.pop_screen", N_("Back"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = _("Settings")
            yield Label(_("Language"))
            yield Select([(NAMES[code], code) for code in LANGUAGES], value=language(), allow_blank=False,
                         id="language")
            yield Label(_("Tutor"))
            with Horizontal(id="tutor-row"):
                yield Switch(value=bool(self.app.tutor), id="tutor")
                yield Static(_("In new games the tutor asks before a clear mistake (t turns it on or off in play)."),
                             id="tutor-note")
            yield Static(_("Each change is kept at once. Esc goes back."), id="settings-keys")

    @on(Select.Changed, "#language")
    def language_chosen(self, event: Select.Changed) -> None:
        code = str(event.value)
        if code not in LANGUAGES or code == language():
            return
        set_language(code)
        self.app.change_settings(language=code)
        self.app.retranslate()

    @on(Switch.Changed, "#tutor")
    def tutor_switched(self, event: Switch.Changed) -> None:
        if event.value == self.app.tutor:
            return
        self.app.tutor = event.value
        self.app.change_settings(tutor=event.value)

    def retranslate(self) -> None:
        """Drawn again in the language in use, the language's choice in focus."""
        self.call_later(self.redraw)

    async def redraw(self) -> None:
        await self.recompose()
        self.query_one("#language", Select).focus()
