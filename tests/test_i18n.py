"""The catalogs and the choice of language (cuarenta_tutor/i18n): every message of the code, the lessons and the help
translated in `es` (nothing missing, untranslated, fuzzy or stale, every placeholder kept), the compiled `.mo` equal
to its `.po`, the language read from --lang, the setting and the environment as gettext reads it, and numbers in the
language's formats."""

import pytest

from cuarenta_tutor import i18n
from cuarenta_tutor.i18n import catalogs


@pytest.fixture(scope="module")
def found():
    return catalogs.problems("es")


@pytest.mark.parametrize("kind", ["missing", "untranslated", "fuzzy", "placeholders", "stale", "duplicate"])
def test_the_spanish_catalog_has_no(found, kind):
    assert found[kind] == [], f"{len(found[kind])} {kind}:\n" + "\n".join(found[kind][:40])


def test_the_catalog_check_finds_a_message_that_is_not_translated(tmp_path):
    """The check can fail: a message of the code that no catalog has is missing."""
    source = tmp_path / "pkg"
    source.mkdir()
    (source / "screen.py").write_text('from x import _\n_("A sentence no catalog holds")\n_("Back")\n')
    wanted = catalogs.code_messages(source)
    assert set(wanted) == {"A sentence no catalog holds", "Back"}
    found = catalogs.problems("es", wanted)
    assert [line.split(" (")[0] for line in found["missing"]] == ["'A sentence no catalog holds'"]


def test_each_compiled_catalog_is_its_po_compiled():
    """The `.mo` files the app reads are committed: each must be what its `.po` compiles to now."""
    folder = i18n.LOCALE_DIR / "es" / "LC_MESSAGES"
    pos = sorted(folder.glob("*.po"))
    assert pos, "no Spanish catalog"
    for name, catalog in catalogs.read_catalogs("es").items():
        mo = folder / name.replace(".po", ".mo")
        assert mo.exists() and mo.read_bytes() == catalogs.mo_bytes(catalog), \
            f"{mo.name} is not {name} compiled: python -m cuarenta_tutor.i18n compile"


def test_the_spanish_catalog_is_large_and_used():
    total = sum(len(list(c)) - 1 for c in catalogs.read_catalogs("es").values())
    assert total >= 500, total
    i18n.set_language("es")
    assert i18n._("Back") != "Back"
    assert i18n.ngettext("{n} card", "{n} cards", 1) != i18n.ngettext("{n} card", "{n} cards", 2)


@pytest.mark.parametrize("environ, lang", [
    ({"LANG": "es_EC.UTF-8"}, "es"),
    ({"LANG": "es_ES"}, "es"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({}, "en"),
    ({"LANG": "C"}, "en"),
    ({"LC_ALL": "C", "LANG": "es_EC.UTF-8"}, "en"),              # LC_ALL before LANG, as gettext reads them
    ({"LC_MESSAGES": "es_EC.UTF-8", "LANG": "en_US"}, "es"),
    ({"LANGUAGE": "fr:es", "LANG": "en_US"}, "es"),                # the first of the list that we have
    ({"LANGUAGE": "fr", "LANG": "es_EC.UTF-8"}, "es"),             # none of ours listed: the locale decides
    ({"LANGUAGE": "en", "LANG": "es_EC.UTF-8"}, "en"),
    ({"LANGUAGE": "", "LANG": "es_EC.UTF-8"}, "es"),               # set but empty: not set
])
def test_the_environment_chooses_the_language_as_gettext_does(environ, lang):
    assert i18n.from_environment(environ) == lang


def test_a_language_by_any_of_its_names_and_an_unknown_one_refused():
    assert [i18n.parse_language(v) for v in ("es", "ES", "es_EC", "es-EC.UTF-8", "en_US")] == ["es"] * 4 + ["en"]
    with pytest.raises(ValueError, match="choose one of: en, es"):
        i18n.parse_language("fr")


def test_numbers_and_percentages_in_each_language():
    i18n.set_language("en")
    assert (i18n.number(1024), i18n.percent(62.5, 1), i18n.percent(62), i18n.signed(-3.5, 1), i18n.signed(2)) == \
        ("1,024", "62.5%", "62%", "-3.5", "+2")
    i18n.set_language("es")
    assert (i18n.number(1024), i18n.percent(62.5, 1), i18n.percent(62), i18n.signed(-3.5, 1), i18n.signed(2)) == \
        ("1.024", "62,5 %", "62 %", "-3,5", "+2")
    assert i18n.join(["A", "2", "K"]) == "A, 2 y K"


def test_the_stored_choice_is_read_and_a_damaged_file_chooses_nothing(tmp_path):
    path = tmp_path / "settings.json"
    assert i18n.stored_choice(path) == ""
    path.write_text('{"language": "es"}')
    assert i18n.stored_choice(path) == "es"
    for damaged in ('{"language": "xx"}', "[1, 2]", "{not json"):
        path.write_text(damaged)
        assert i18n.stored_choice(path) == ""


def test_a_paragraph_text_is_translated_paragraph_by_paragraph():
    i18n.set_language("es")
    text = "Back\n\nnot a message of ours"
    assert i18n.paragraphs(text) == i18n._("Back") + "\n\nnot a message of ours"


def test_a_damaged_file_is_named_in_the_language_of_the_message(spanish, user_data):
    """The checked reader names the kind of file inside its sentence: in Spanish, in Spanish ("el mazo de
    ejercicios", not "the drill deck")."""
    from cuarenta_tutor.coach.drills import deck_path, load_deck

    user_data.mkdir(parents=True, exist_ok=True)
    deck_path().write_text("{broken")
    problem = load_deck().problems[0]
    assert "el mazo de ejercicios" in problem and "the drill deck" not in problem, problem
