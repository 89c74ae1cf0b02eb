"""Provides the language a person reads: the catalogs, the chosen language, and numbers in its formats.

Every word shown to a person goes through `_` (or `ngettext` where a count decides the form, `pgettext` where one
English word has two Spanish ones). The English text in the code is the msgid; the Spanish is in
`cuarenta_tutor/locale/es/LC_MESSAGES/*.po` (the source, one file per area of the code: a reviewer reads one area's
words together), compiled to the `.mo` beside each (`python -m cuarenta_tutor.i18n compile`; a test keeps them equal).
At run time the standard library's `gettext` reads the `.mo` files of the language, chained into one catalog.

Placeholders are named, `str.format` style (`_("You won the chica {ours} to {theirs}").format(...)`): an f-string
can't be extracted, and a translation may put the words in another order. A string defined where no language is
known yet (a module-level table, a Textual binding) is marked with `N_` and translated where it is shown.

The language: `--lang`, else the person's setting, else the environment as gettext reads it (`LANGUAGE`, `LC_ALL`,
`LC_MESSAGES`, `LANG`: the first one set decides; `es_EC.UTF-8` or any `es*` gives Spanish); English otherwise.

Numbers a person reads are formatted for the language with Babel (es_EC: "1.024", "62,5 %"); JSON output keeps
plain numbers. Babel is imported the first time a number is formatted in Spanish, never at start.
"""

from __future__ import annotations

import gettext as _gettext
import os
from functools import lru_cache
from pathlib import Path

LANGUAGES = ("en", "es")
"""The languages of the interface; English is the source text."""
LOCALES = {"en": "en_US", "es": "es_EC"}
"""The locale whose number formats each language uses (Ecuador's, for Spanish)."""
NAMES = {"en": "English", "es": "Español"}
"""Each language by its own name (what the settings screen offers, untranslated, as every program does)."""
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""The variables read for the language, in gettext's order."""
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_current = {"lang": "en", "catalog": _gettext.NullTranslations()}


def language() -> str:
    """The language in use: "en" or "es"."""
    return _current["lang"]


def from_environment(environ=None) -> str:
    """The language the environment asks for: the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is set decides
    (LANGUAGE may list several, "fr:es": the first we have); Spanish for any `es*`, else English."""
    environ = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = environ.get(name, "")
        if not value:
            continue
        for part in value.split(":"):
            code = part.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
            if code in LANGUAGES:
                return code
        if name != "LANGUAGE":  # a LANGUAGE list with none of ours leaves the choice to the locale variables
            return "en"
    return "en"


def parse_language(value) -> str:
    """"es", "es_EC", "es-EC.UTF-8", "ES" -> "es"; "en..." -> "en"; anything else raises ValueError."""
    code = str(value).strip().split(".")[0].replace("-", "_").split("_")[0].lower()
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {value!r}; choose one of: {', '.join(LANGUAGES)}")
    return code


def set_language(lang: str | None = None) -> str:
    """Use `lang` ("en", "es"; None or "": the environment's) from now on, in this process; the language set."""
    code = parse_language(lang) if lang else from_environment()
    _current["lang"], _current["catalog"] = code, catalog(code)
    return code


def stored_choice(settings_file) -> str:
    """The language a person chose in the settings file at `settings_file` ("" where none, or where the file can't
    be read). A peek before any screen or `--help`; the settings are read and checked, a damaged file reported and
    kept aside, by records.load_settings when the app loads them."""
    import json

    try:
        with open(settings_file, "rb") as fp:
            data = json.loads(fp.read(1 << 16))
    except (OSError, ValueError):
        return ""
    value = data.get("language", "") if isinstance(data, dict) else ""
    return value if value in LANGUAGES else ""


@lru_cache(maxsize=None)
def catalog(lang: str) -> _gettext.NullTranslations:
    """The compiled catalogs of `lang`, chained into one (English: none, the msgids are the text)."""
    chain = _gettext.NullTranslations()
    if lang == "en":
        return chain
    files = sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.mo"))
    head = None
    for path in files:
        with open(path, "rb") as fp:
            translations = _gettext.GNUTranslations(fp)
        if head is None:
            head = translations
        else:
            head.add_fallback(translations)
    return head or chain


def _(message: str) -> str:
    """`message` in the language in use."""
    return _current["catalog"].gettext(message)


gettext = _


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n` ("1 card", "2 cards"; Spanish has its own rule)."""
    return _current["catalog"].ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in a context, where one English word needs different words in Spanish."""
    return _current["catalog"].pgettext(context, message)


def N_(message: str) -> str:
    """Marks `message` for the catalog where it is defined; `_` translates it where it is shown."""
    return message


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _current["catalog"].npgettext(context, singular, plural, n)


# ---- numbers -----------------------------------------------------------------------------------------------------
def number(value, digits: int = 0) -> str:
    """A number as the language writes it: "1,024.5" / "1.024,5"; `digits` after the point, always shown."""
    if language() == "en":
        return f"{value:,.{digits}f}"
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(round(float(value), digits), format=pattern, locale=LOCALES[language()],
                          decimal_quantization=True)


def percent(value, digits: int = 0) -> str:
    """A value in percent points as the language writes it: "62.5%" / "62,5 %" (ESPANOL.md)."""
    return number(value, digits) + ("%" if language() == "en" else " %")


def signed(value, digits: int = 0) -> str:
    """A number with its sign: "+2", "-3,5" (a minus for negatives, a plus for the rest but zero)."""
    text = number(abs(value), digits)
    if round(value, digits) > 0:
        return "+" + text
    if round(value, digits) < 0:
        return "-" + text
    return text


def paragraphs(text: str) -> str:
    """A long text (a help page, a lesson) translated paragraph by paragraph: each paragraph, split at blank lines,
    is its own message, as documentation catalogs do (catalogs.DOCS lists the files so extracted)."""
    return "\n\n".join(_(part) if part.strip() else part for part in text.split("\n\n"))


def join(words, last: str | None = None) -> str:
    """Words as a list a person reads: "a, b and c" / "a, b y c"."""
    words = [str(w) for w in words]
    if len(words) <= 1:
        return "".join(words)
    if last is None:
        last = _(" and ")
    return ", ".join(words[:-1]) + last + words[-1]
