"""Provides the app's words that must follow the language while it runs: the keys' descriptions in every footer,
keys panel and command palette, Textual's own commands, and the rules presets' names.

Textual builds a screen's BINDINGS when its module is imported, before any language is chosen, and the language can
change while the app runs (the settings screen): so a binding's description is an English msgid marked with `N_`,
and `install` makes every screen give its active bindings with the description translated at the moment a footer,
the keys panel or the palette reads them (Screen.active_bindings, the one place Textual reads them from). Keys never
change with the language.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import ActiveBinding, Binding
from textual.screen import Screen

from ..engine import preset_label
from ..i18n import N_, _

TEXTUAL_WORDS = (
    N_("palette"), N_("Open the command palette"), N_("Search for commands…"),
    N_("Theme"), N_("Change the current theme"), N_("Quit the application as soon as possible"),
    N_("Keys"), N_("Show help for the focused widget and a summary of available keys"),
    N_("Hide the keys and widget help panel"), N_("Minimize"), N_("Minimize the widget and restore to normal size"),
    N_("Maximize"), N_("Maximize the focused widget"), N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"),
)
"""Textual's own words that our screens show (the footer's palette key, its system commands), marked so the catalog
translates them: `_` looks them up where they are shown."""


def translated(active: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
    """Active bindings with their descriptions and tooltips in the language in use (keys and actions as they are)."""
    out = {}
    for key, item in active.items():
        binding: Binding = item.binding
        if binding.description or binding.tooltip:
            binding = replace(binding, description=_(binding.description) if binding.description else "",
                              tooltip=_(binding.tooltip) if binding.tooltip else "")
        out[key] = item._replace(binding=binding, tooltip=_(item.tooltip) if item.tooltip else item.tooltip)
    return out


_TEXTUAL_ACTIVE_BINDINGS = Screen.active_bindings
"""Textual's own property, which `install` wraps."""


def _active_bindings(screen: Screen) -> dict[str, ActiveBinding]:
    return translated(_TEXTUAL_ACTIVE_BINDINGS.fget(screen))


def install() -> None:
    """Every screen's footer, keys panel and palette show the keys' descriptions in the language in use, read each
    time they are drawn (a change of language shows at the next refresh of the bindings). Once per process; again
    is nothing."""
    if Screen.active_bindings is not _TRANSLATED:
        Screen.active_bindings = _TRANSLATED


_TRANSLATED = property(_active_bindings, doc=_TEXTUAL_ACTIVE_BINDINGS.__doc__)


def preset_name(name: str | None) -> str:
    """A rules preset by its readable name in the language in use ("Standard", "Quito, todo dos": the engine's
    preset_label); None, rules of no preset: "custom"."""
    return preset_label(name) if name else _("custom")


__all__ = ["TEXTUAL_WORDS", "install", "preset_name", "translated"]
