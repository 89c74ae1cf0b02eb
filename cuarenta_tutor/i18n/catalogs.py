"""Provides the upkeep of the catalogs (Babel): what the code and the lessons say, what each language's `.po` files
translate, what is missing, and the compiled `.mo` files the app reads.

    python -m cuarenta_tutor.i18n check [LANG]       missing, untranslated, fuzzy, stale, placeholders; exit 1 on any
    python -m cuarenta_tutor.i18n missing [LANG]     the msgids no `.po` has yet, as `.po` entries to fill in
    python -m cuarenta_tutor.i18n compile [LANG]     every `.po` -> its `.mo` (commit both)

Messages come from the code (`_`, `N_`, `gettext`, `ngettext`, `pgettext`, `npgettext` calls, extracted by Babel's
Python extractor), from the lessons' TOML files (their `title`, `text`, `prompt` and `why`), and from argparse (its
own words, "usage: ", "options", kept in `argparse.po`, which the check reads as given). Developers only: the app
never imports this module.
"""

from __future__ import annotations

import io
import re
import tomllib
from pathlib import Path

from . import LOCALE_DIR

PACKAGE_DIR = LOCALE_DIR.parent
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3)}
LESSON_FIELDS = ("title", "text", "prompt", "why")
"""The fields of a lesson file (and of its positions) that a person reads; a position's `feedback` table (move name
-> text) too."""
DOCS = ("tui/help.md",)
"""Texts shown through `paragraphs`, relative to the package: each paragraph (split at blank lines) a message."""
OWN_WORDS = ("argparse.po",)
"""Catalogs of words that are not in our code (argparse's): checked for translation, never for being stale."""
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%(?:\([a-z_]+\))?[sdrif]")


def lessons_dir() -> Path:
    for candidate in (PACKAGE_DIR / "_data" / "lessons", PACKAGE_DIR.parent / "lessons"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the lessons folder is missing")


def code_messages(package_dir: Path | None = None) -> dict:
    """Every message the code marks: {key: [where, ...]}; a key is the msgid, a (singular, plural) pair, or
    (CONTEXT, context, either of those)."""
    from babel.messages.extract import extract_from_dir

    found: dict = {}
    for filename, lineno, message, _comments, context in extract_from_dir(
            str(package_dir or PACKAGE_DIR), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=(),
            strip_comment_tags=True):
        key = _key(message, context)
        if key is None:
            continue
        found.setdefault(key, []).append(f"cuarenta_tutor/{filename}:{lineno}")
    return found


def lesson_messages(folder: Path | None = None) -> dict:
    """Every text of every lesson a person reads: {msgid: [where, ...]}."""
    found: dict = {}
    folder = folder or lessons_dir()
    for path in sorted(folder.rglob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for place in [data, *data.get("positions", [])]:
            for field in LESSON_FIELDS:
                value = place.get(field)
                if isinstance(value, str) and value.strip():
                    found.setdefault(value, []).append(f"lessons/{path.relative_to(folder)}:{field}")
            feedback = place.get("feedback")
            for value in feedback.values() if isinstance(feedback, dict) else ():
                if isinstance(value, str) and value.strip():
                    found.setdefault(value, []).append(f"lessons/{path.relative_to(folder)}:feedback")
    return found


def doc_messages() -> dict:
    """Every paragraph of the DOCS files: {msgid: [where, ...]}."""
    found: dict = {}
    for name in DOCS:
        path = PACKAGE_DIR / name
        if not path.exists():
            continue
        for part in path.read_text(encoding="utf-8").split("\n\n"):
            if part.strip():
                found.setdefault(part, []).append(f"cuarenta_tutor/{name}:paragraph")
    return found


def wanted_messages() -> dict:
    """Every message a catalog must translate: the code's, the lessons', the DOCS' paragraphs."""
    return {**code_messages(), **lesson_messages(), **doc_messages()}


def _key(message, context):
    if isinstance(message, tuple):
        if any(not m for m in message[:2]):
            return None
        message = tuple(message[:2])
    elif not message:
        return None
    return (CONTEXT, context, message) if context else message


CONTEXT = "\x04"
"""Keys with a context are (CONTEXT, context, msgid): never mistaken for a (singular, plural) pair."""


def read_catalogs(lang: str) -> dict:
    """{file name: babel Catalog} of a language's `.po` files."""
    from babel.messages.pofile import read_po

    out = {}
    for path in sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.po")):
        with open(path, "rb") as fp:
            out[path.name] = read_po(fp, locale=lang)
    return out


def catalog_keys(catalog) -> dict:
    """{key: message} of a Catalog, keyed as code_messages keys its messages."""
    out = {}
    for message in catalog:
        if not message.id:
            continue
        ident = tuple(message.id[:2]) if isinstance(message.id, (list, tuple)) else message.id
        out[(CONTEXT, message.context, ident) if message.context else ident] = message
    return out


def placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


def problems(lang: str = "es", wanted: dict | None = None) -> dict[str, list[str]]:
    """What the language's catalogs lack (for `wanted`: every message of the package, by default): each kind of
    problem with the messages that have it."""
    wanted = wanted_messages() if wanted is None else wanted
    catalogs = read_catalogs(lang)
    have: dict = {}
    for name, catalog in catalogs.items():
        for key, message in catalog_keys(catalog).items():
            have.setdefault(key, []).append((name, message))
    found = {"missing": [], "untranslated": [], "fuzzy": [], "placeholders": [], "stale": [], "duplicate": []}
    for key, where in wanted.items():
        if key not in have:
            found["missing"].append(f"{_show(key)} ({where[0]})")
    for key, entries in have.items():
        names = [name for name, _message in entries]
        if len(entries) > 1:
            found["duplicate"].append(f"{_show(key)} in {', '.join(names)}")
        for name, message in entries:
            strings = [message.string] if isinstance(message.string, str) else list(message.string)
            if not all(strings):
                found["untranslated"].append(f"{_show(key)} ({name})")
            if message.fuzzy:
                found["fuzzy"].append(f"{_show(key)} ({name})")
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            for text in strings:
                if text and set(placeholders(text)) != set(placeholders(ids[-1])) | set(placeholders(ids[0])):
                    found["placeholders"].append(f"{_show(key)} ({name}): {text!r}")
            if key not in wanted and name not in OWN_WORDS:
                found["stale"].append(f"{_show(key)} ({name})")
    return found


def _show(key) -> str:
    if isinstance(key, tuple) and key[0] == CONTEXT:
        return f"{key[1]}|{key[2]!r}"
    return repr(key)


def missing_po(lang: str = "es", under: str = "") -> str:
    """The missing messages as `.po` entries with empty translations, with where each is used (only those used
    somewhere under the path `under`, "cuarenta_tutor/tui", when given)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    wanted = wanted_messages()
    have = set()
    for catalog in read_catalogs(lang).values():
        have |= set(catalog_keys(catalog))
    out = Catalog(locale=lang)
    for key, where in wanted.items():
        if key in have or not any(w.startswith(under) for w in where):
            continue
        context, ident = (key[1], key[2]) if isinstance(key, tuple) and key[0] == CONTEXT else (None, key)
        out.add(ident, string=("", "") if isinstance(ident, tuple) else "", locations=[_loc(w) for w in where[:3]],
                context=context)
    buffer = io.BytesIO()
    write_po(buffer, out, omit_header=True, width=120)
    return buffer.getvalue().decode("utf-8")


def _loc(where: str):
    path, _sep, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, None)


def compile_all(lang: str = "es") -> list[Path]:
    """Compile each `.po` of `lang` to its `.mo`; the files written."""
    written = []
    for name, catalog in read_catalogs(lang).items():
        path = LOCALE_DIR / lang / "LC_MESSAGES" / name.replace(".po", ".mo")
        path.write_bytes(mo_bytes(catalog))
        written.append(path)
    return written


def mo_bytes(catalog) -> bytes:
    """The `.mo` of a catalog, the same bytes whenever it is compiled: Babel stamps a `.po` without a
    POT-Creation-Date with the time of reading, so the stamp is fixed here (the `.po`'s history is git's)."""
    from datetime import datetime, timezone

    from babel.messages.mofile import write_mo

    catalog.creation_date = datetime(2026, 1, 1, tzinfo=timezone.utc)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()
