"""Provides the line and its JSON form: parse / to_line, from_json / to_json."""

from __future__ import annotations

import re

from ..engine import PRESETS, RANKS, parse_card, parse_rank
from ..i18n import _
from .value import Position, PositionError, refuse

SECTIONS = ("hand", "table", "last", "stock", "gone")
"""The keyword sections of a line, in the order `to_line` prints them."""


def _ranks_text(ranks) -> str:
    return " ".join(RANKS[r] for r in ranks)


def _rank(text: str, field: str) -> int:
    try:
        return parse_card(text) >> 2 if len(text) >= 2 and text[-1] not in "0123456789" else parse_rank(text)
    except ValueError:
        raise PositionError(field, _("{field}: {text} is not a card; write a rank: A, 2 to 7, J, Q or K").format(
            field=field, text=repr(text))) from None


def _int(text: str, field: str) -> int:
    if not re.fullmatch(r"\d{1,3}", text):
        refuse(field, _("{field}: {text} is not a number").format(field=field, text=repr(text)))
    return int(text)


def _pair(text: str, field: str, prefix: str = "") -> tuple:
    m = re.fullmatch(re.escape(prefix) + r"(\d{1,3})-(\d{1,3})", text)
    if not m:
        refuse(field, _("{field}: {text} is not a pair such as {example}").format(
            field=field, text=repr(text), example=prefix + "26-30"))
    return int(m.group(1)), int(m.group(2))


def parse(line: str) -> Position:
    """Read a line; PositionError names the field of anything unreadable or impossible."""
    if not isinstance(line, str):
        refuse("line", _("line: a position is a line of text"))
    parts = [part.split() for part in line.strip().split("|")]
    head = parts[0]
    if len(head) != 4:
        refuse("preset", _("preset: the line starts with the preset, the players, the dealer and the seat to move, "
                          "such as: standard 2p d1 s0"))
    name, players, dealer, seat = head
    if not re.fullmatch(r"[24]p", players):
        refuse("players", _("players: {text} is not a player count; write 2p or 4p").format(text=repr(players)))
    for field, text, letter in (("dealer", dealer, "d"), ("seat", seat, "s")):
        if not re.fullmatch(letter + r"\d", text):
            refuse(field, _("{field}: {text} is not a seat; write {letter} and the seat number, such as "
                           "{letter}0").format(field=field, text=repr(text), letter=letter))
    values: dict = {}
    seen: set = set()
    for words in parts[1:]:
        if not words:
            refuse("line", _("line: an empty section between two |"))
        key = words[0]
        if re.fullmatch(r"\d{1,3}-\d{1,3}", key):
            key = "score"
            if len(words) != 2:
                refuse("carton", _("carton: write the score and the cards captured, such as 26-30 c8-12"))
            values["carton"] = _pair(words[1], "carton", "c")
            values["score"] = _pair(words[0], "score")
        elif key not in SECTIONS:
            refuse("line", _("line: {text} is not a part of a position; the parts are the scores, {names}").format(
                text=repr(key), names=", ".join(SECTIONS)))
        elif key in ("last", "stock") and len(words) != 2:
            refuse(key, _("{field}: write one value after {field}").format(field=key))
        elif key == "stock":
            values[key] = _int(words[1], key)
        elif key == "last":
            values[key] = _rank(words[1], key)
        elif key == "table" and words[1:] == ["-"]:
            values[key] = ()
        else:
            values[key] = tuple(_rank(w, key) for w in words[1:])
        if key in seen:
            refuse(key, _("{field}: given twice").format(field=key))
        seen.add(key)
    for required in ("score", "hand", "stock"):
        if required not in values:
            refuse(required, _("{field}: missing; a position needs the scores, the hand and the stock").format(
                field=required))
    return Position(name, int(players[0]), int(dealer[1:]), int(seat[1:]), values["score"], values["carton"],
                    tuple(sorted(values["hand"])), values.get("table", ()), values.get("last"), values["stock"],
                    tuple(sorted(values.get("gone", ()))))


def to_line(p: Position) -> str:
    """The position as one line (`parse` reads it back to the same position)."""
    parts = [f"{p.preset} {p.players}p d{p.dealer} s{p.seat}",
             f"{p.score[0]}-{p.score[1]} c{p.carton[0]}-{p.carton[1]}",
             f"hand {_ranks_text(p.hand)}", f"table {_ranks_text(p.table) or '-'}"]
    if p.last is not None:
        parts.append(f"last {RANKS[p.last]}")
    parts.append(f"stock {p.stock}")
    if p.gone:
        parts.append(f"gone {_ranks_text(p.gone)}")
    return " | ".join(parts)


# JSON ----------------------------------------------------------------------------------------------------------------


def to_json(p: Position) -> dict:
    """The position as a JSON-ready dict with the line's fields (ranks as their names)."""
    return {"preset": p.preset, "players": p.players, "dealer": p.dealer, "seat": p.seat, "score": list(p.score),
            "carton": list(p.carton), "hand": [RANKS[r] for r in p.hand], "table": [RANKS[r] for r in p.table],
            "last": None if p.last is None else RANKS[p.last], "stock": p.stock, "gone": [RANKS[r] for r in p.gone]}


def _json_int(data: dict, key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        refuse(key, _("{field}: {value} is not a whole number").format(field=key, value=repr(value)))
    return value


def _json_ranks(data: dict, key: str) -> tuple:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        refuse(key, _("{field}: a list of ranks, such as [\"3\", \"5\", \"K\"]").format(field=key))
    return tuple(_rank(v, key) for v in value)


def from_json(data) -> Position:
    """Read the JSON form; PositionError names the key of anything wrong."""
    if not isinstance(data, dict):
        refuse("line", _("line: a position in JSON is an object"))
    pairs = {}
    for key in ("score", "carton"):
        value = data.get(key)
        if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
            refuse(key, _("{field}: a pair of whole numbers, such as [26, 30]").format(field=key))
        pairs[key] = tuple(value)
    name = data.get("preset")
    if not isinstance(name, str):
        refuse("preset", _("preset: {name} is not a rules preset; use one of {choices}").format(
            name=repr(name), choices=", ".join(PRESETS)))
    last = data.get("last")
    if last is not None and not isinstance(last, str):
        refuse("last", _("{field}: {text} is not a card; write a rank: A, 2 to 7, J, Q or K").format(
            field="last", text=repr(last)))
    return Position(name, _json_int(data, "players"), _json_int(data, "dealer"), _json_int(data, "seat"),
                    pairs["score"], pairs["carton"], tuple(sorted(_json_ranks(data, "hand"))),
                    _json_ranks(data, "table"), None if last is None else _rank(last, "last"),
                    _json_int(data, "stock"), tuple(sorted(_json_ranks(data, "gone"))))

