"""Provides the hand-value table: each team's chance to win the game from the end of a hand, by the two
teams' scores and who deals next, for the agent playing itself.

At the end of a hand nothing but the scores and the next dealer is left (every card is shuffled again), so
a table holds the whole value of such a position. It is built by simulating hands from every score the
agent reaches (the same greedy playouts as the analysis, playout.py) and solving for the game's end over
their outcomes (value iteration: scores only rise, but from 30 a hand can leave them as they were). The
analysis values its playouts there instead of asking the critic, whose error at that point was the largest
part of the analysis's error.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from .. import core
from ..core.layout import DEALER, SCORES, WINNER, to_row
from ..engine import Dealer, Rules
from ..engine.rules import TARGET_SCORE
from ..i18n import _, language
from ..records import FileError, read_json
from .playout import Lane, Playouts
from .policy import PlayoutPolicy, read_policy
from .rows import HandEnd, RowLanes


class HandValues:
    """P(team 0 wins) from the end of a hand, by (team 0's score, team 1's score, next dealer), and each entry's
    standard error (the simulation's own, and what it inherits from the entries its hands lead to)."""

    def __init__(self, table: np.ndarray, rules: Rules, hands: int = 0, se: np.ndarray | None = None, seed: int = 0):
        self.table, self.rules, self.hands, self.seed = table, rules, hands, seed
        """`table`: [TARGET_SCORE, TARGET_SCORE, players], NaN where no simulated hand reached;
        `hands`: hands simulated per score; `seed`: the simulation's."""
        self.se = np.zeros_like(table) if se is None else se

    def _entry(self, state) -> tuple:
        a, b = (min(s, TARGET_SCORE - 1) for s in state.scores)
        if np.isnan(self.table[a, b, state.dealer]):  # a score no simulated hand reached: the nearest one that was
            known = np.argwhere(~np.isnan(self.table[:, :, state.dealer]))
            a, b = known[np.argmin(np.abs(known - (a, b)).sum(axis=1))]
        return a, b, state.dealer

    def rows(self, scores: np.ndarray, dealers: np.ndarray, team: int) -> tuple[np.ndarray, np.ndarray]:
        """`win` and `error` of many hands' ends at once (scores [k, 2], next dealers [k]): the same numbers."""
        a, b = (np.minimum(scores[:, t], TARGET_SCORE - 1) for t in (0, 1))
        for i in np.flatnonzero(np.isnan(self.table[a, b, dealers])):
            a[i], b[i], _ = self._entry(HandEnd((int(a[i]), int(b[i])), int(dealers[i])))
        p = self.table[a, b, dealers]
        return (p if team == 0 else 1.0 - p), self.se[a, b, dealers]

    def win(self, state, team: int) -> float:
        """`team`'s chance to win from `state`, the end of a hand (awaiting the next hand's first deal)."""
        p = float(self.table[self._entry(state)])
        return p if team == 0 else 1.0 - p

    def error(self, state) -> float:
        """The standard error of `win` at `state` (either team's)."""
        return float(self.se[self._entry(state)])

    def to_json(self) -> dict:
        """{"rules", "hands_per_score", "seed", "win_team0" and "se": per next dealer, per team 0's score, per
        team 1's score, P(team 0 wins) and its standard error, or null where no hand reached}."""
        def planes(values):
            return [[[None if np.isnan(x) else round(float(x), 4) for x in row] for row in plane]
                    for plane in values.transpose(2, 0, 1)]
        se = np.where(np.isnan(self.table), np.nan, self.se)
        return {"rules": self.rules.to_dict(), "hands_per_score": self.hands, "seed": self.seed,
                "win_team0": planes(self.table), "se": planes(se)}

    @classmethod
    def from_json(cls, data: dict) -> HandValues:
        def read(planes):
            return np.array([[[np.nan if x is None else x for x in row] for row in plane]
                             for plane in planes], dtype=float).transpose(1, 2, 0)
        table = read(data["win_team0"])
        rules = Rules().with_options(**data["rules"])
        if table.shape != (TARGET_SCORE, TARGET_SCORE, rules.players):
            raise ValueError(_("a hand-value table is {want}, not {shape}").format(
                want=f"{TARGET_SCORE}x{TARGET_SCORE}x{rules.players}", shape="x".join(map(str, table.shape))))
        se = read(data["se"]) if "se" in data else None
        if se is not None and se.shape != table.shape:
            raise ValueError(_("a hand-value table's se has another shape than its values"))
        if np.any((table < 0) | (table > 1)) or (se is not None and np.any(se < 0)):
            raise ValueError(_("a hand-value table holds chances outside 0..1 or a negative se"))
        return cls(table, rules, int(data.get("hands_per_score", 0)), None if se is None else np.nan_to_num(se),
                   int(data.get("seed", 0)))


def simulate(agent, rules: Rules, starts: list, hands: int, seed: int) -> list[list]:
    """Per start (scores, dealer), the outcomes of `hands` hands the agent plays against itself: the
    winning team (an int) or the (scores, next dealer) the hand ended on."""
    return play_hands(agent, rules, starts, deal_seeds(len(starts), hands, seed))


def deal_seeds(starts: int, hands: int, seed: int) -> list[list[int]]:
    """The cards of `simulate`'s hands: per start, a seed a hand (drawn in order, so a share of the starts played
    elsewhere with its own seeds gives the numbers it gives here)."""
    rng = random.Random(seed)
    return [[rng.randrange(1 << 62) for _ in range(hands)] for _ in range(starts)]


def play_hands(agent, rules: Rules, starts: list, seeds: list[list[int]]) -> list[list]:
    """`simulate` with the hands' seeds given (deal_seeds): per start, its hands' outcomes. A lane's outcome does
    not depend on the lanes played beside it."""
    lanes = []
    for k, ((scores, dealer), hands) in enumerate(zip(starts, seeds, strict=True)):
        for hand_seed in hands:
            cards = Dealer(hand_seed)
            state = cards.start(rules, dealer, scores)[0]
            lanes.append(Lane(state, cards, k, 0, hand_no=state.hand_no))
    playouts = Playouts(agent.run, agent.hidden, "hand", leaf=lambda state, team: 0.5, encoding=agent.encoding,
                        remember=getattr(agent, "remember", None))
    zero = np.zeros((1, 1, agent.hidden), np.float32)
    if core.fast():
        rows = np.stack([to_row(lane.state, lane.dealer.next_stock(lane.state)) for lane in lanes])
        played = RowLanes(rows, rules, [0] * len(rows))
        playouts.play_rows(played, 0, zero, zero)
        ends = [(int(r[WINNER]), (int(r[SCORES]), int(r[SCORES + 1])), int(r[DEALER])) for r in played.rows]
    else:
        playouts.play(lanes, 0, zero, zero)
        ends = [(lane.state.winner, tuple(lane.state.scores), lane.state.dealer) for lane in lanes]
    out = [[] for _ in starts]
    for lane, (winner, scores, dealer) in zip(lanes, ends, strict=True):
        out[lane.move].append(winner if winner >= 0 else (scores, dealer))
    return out


def _value(outcome, table: np.ndarray) -> float:
    """P(team 0 wins) after one simulated hand: its winner's, or the table's at the scores it ended on."""
    if isinstance(outcome, int):
        return 1.0 - outcome
    (a, b), dealer = outcome
    return table[a, b, dealer]


def _fixed_point(outcomes: dict, grid: np.ndarray, step, rounds: int) -> np.ndarray:
    """Update `grid` at every start with `step(start, its outcomes)` until nothing moves by 1e-7."""
    for _round in range(rounds):
        change = 0.0
        for start, results in outcomes.items():
            (a, b), dealer = start
            new = step(start, results)
            change = max(change, abs(new - grid[a, b, dealer]))
            grid[a, b, dealer] = new
        if change < 1e-7:
            break
    return grid


def standard_errors(outcomes: dict, table: np.ndarray) -> np.ndarray:
    """Each entry's standard error: its own (the spread of its hands' values over their number) and, in
    quadrature, the mean error of the entries its hands lead to (taken as fully correlated), to a fixed point."""
    own = {start: float(np.var([_value(r, table) for r in results]) / len(results))
           for start, results in outcomes.items()}

    def step(start, results):
        inherited = sum(0.0 if isinstance(r, int) else _value(r, se) for r in results) / len(results)
        return float(np.sqrt(own[start] + inherited ** 2))

    se = np.zeros_like(table)
    return _fixed_point(outcomes, se, step, 200)


def solve(outcomes: dict, players: int) -> np.ndarray:
    """The table from each start's outcomes ({(scores, dealer): [outcome, ...]}) by value iteration."""
    table = np.full((TARGET_SCORE, TARGET_SCORE, players), np.nan)
    for (scores, dealer) in outcomes:
        table[scores[0], scores[1], dealer] = 0.5
    return _fixed_point(outcomes, table, lambda start, results: sum(_value(r, table) for r in results) / len(results),
                        10000)


def build(agent, rules: Rules | None = None, hands: int = 200, seed: int = 0, batch: int = 40,
          progress=None, keep: Path | None = None, jobs: int = 1) -> HandValues:
    """Simulate `hands` hands from every score reached from 0-0 (breadth first), then solve. With `keep`, the
    outcomes so far are written there after each batch, and a run of the same model, rules, hands and seed goes on
    from them (the same table as a run never stopped). With `jobs` above 1, each batch's starts are shared over
    that many processes (the same table: each start's hands have their seeds, deal_seeds)."""
    rules = rules or Rules()
    outcomes: dict = {}
    todo = [((0, 0), d) for d in range(rules.players)]
    round_no = 0
    identity = {"model_sha256": agent.model_id, "rules": rules.to_dict(), "hands": hands, "seed": seed,
                "batch": batch}
    if keep is not None:
        outcomes, todo, round_no = _resume(keep, identity, outcomes, todo, round_no)
    seen = set(outcomes) | set(todo)
    with _Sharing(agent, rules, jobs) as shared:
        while todo:
            chunk, todo = todo[:batch], todo[batch:]
            results = shared.play(chunk, deal_seeds(len(chunk), hands, seed * 1_000_003 + round_no))
            round_no += 1
            for start, found in zip(chunk, results, strict=True):
                outcomes[start] = found
                for r in found:
                    if not isinstance(r, int) and r not in seen:
                        seen.add(r)
                        todo.append(r)
            if keep is not None:
                _checkpoint(keep, identity, outcomes, todo, round_no)
            if progress:
                progress(len(outcomes), len(outcomes) + len(todo))
    table = solve(outcomes, rules.players)
    return HandValues(table, rules, hands, standard_errors(outcomes, table), seed)


class _Sharing:
    """`build`'s hands played here (jobs 1), or shared over `jobs` worker processes, each with the agent's model
    loaded once (workers.agent_for): a batch's starts in contiguous shares, their outcomes in order."""

    def __init__(self, agent, rules: Rules, jobs: int):
        self.agent, self.rules, self.jobs, self.pool = agent, rules, max(1, jobs), None

    def __enter__(self):
        if self.jobs > 1:
            from .workers import worker_pool

            self.pool = worker_pool(self.jobs)
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.terminate()

    def play(self, starts: list, seeds: list[list[int]]) -> list[list]:
        if self.pool is None or len(starts) < 2:
            return play_hands(self.agent, self.rules, starts, seeds)
        cuts = np.linspace(0, len(starts), min(self.jobs, len(starts)) + 1).astype(int)
        shares = [(str(self.agent.path), self.rules, starts[a:b], seeds[a:b]) for a, b in pairwise(cuts)]
        return [found for part in self.pool.map(_play_share, shares) for found in part]


def _play_share(share) -> list[list]:
    """A worker's share of a batch: play_hands with the model at the path given (loaded once per process)."""
    from .workers import agent_for

    path, rules, starts, seeds = share
    return play_hands(agent_for(path), rules, starts, seeds)


def _start(item) -> tuple:
    """A start or an outcome read back from JSON: a winning team (int) or ((score, score), dealer)."""
    return item if isinstance(item, int) else ((item[0], item[1]), item[2])


def _flat(item):
    return item if isinstance(item, int) else [item[0][0], item[0][1], item[1]]


def _checkpoint(path: Path, identity: dict, outcomes: dict, todo: list, round_no: int) -> None:
    from ..records import write_atomic

    write_atomic(Path(path), json.dumps({**identity, "round": round_no, "todo": [_flat(t) for t in todo],
                                         "outcomes": [[_flat(k), [_flat(r) for r in v]] for k, v in outcomes.items()]}))


def _resume(path: Path, identity: dict, outcomes: dict, todo: list, round_no: int):
    """The outcomes, starts to do and batch number kept at `path` by a run of the same identity (else as given)."""
    try:
        data = read_json(Path(path), _("the hand table's checkpoint"), max_bytes=1 << 30, missing=None, then="")
    except FileError:
        return outcomes, todo, round_no
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in identity.items()):
        return outcomes, todo, round_no
    return ({_start(k): [_start(r) for r in v] for k, v in data["outcomes"]}, [_start(t) for t in data["todo"]],
            data["round"])


def sidecar(model_path) -> Path:
    """The JSON beside a model that holds what the analysis measured of it (calibrate.py writes it)."""
    return Path(model_path).with_suffix(".analysis.json")


SIDECAR_BYTES = 16 << 20
"""A sidecar is tens of kilobytes; a larger file is not one (and is not read into memory)."""


DISTIL_COMMAND = "python -m cuarenta_tutor.training.distil"
"""What fits a model's playout policy (training/distil.py)."""


def calibrate_command(model_path) -> str:
    """What to run to measure a model for the analysis (analysis/calibrate.py writes its sidecar)."""
    return f"python -m cuarenta_tutor.analysis.calibrate --model {model_path}"


def uncalibrated_words(model_path) -> str:
    """What an uncalibrated model means for the numbers, and what to do."""
    return _("the analysis values each hand's end with the model's critic, and its intervals leave out the model's "
             "error; {command} measures them (it takes a while)").format(command=calibrate_command(model_path))


@lru_cache(maxsize=8)
def _sidecar(model_path, model_id: str, lang: str = "en") -> tuple[dict, str | None]:
    """The model's sidecar ({} where there is none, it is damaged or made for another model) and, then, why not
    (one line, with what to do, in `lang`, the language in use: a cache entry per language): records.read_json,
    the file left where it is."""
    path = sidecar(model_path)
    try:
        data = read_json(path, _("the analysis sidecar"), _object, max_bytes=SIDECAR_BYTES, keep=False, missing=None,
                         then=uncalibrated_words(model_path))
    except FileError as err:
        return {}, str(err)
    if data is None:
        return {}, _("{model} has no analysis sidecar ({name}): {what}").format(
            model=model_path, name=path.name, what=uncalibrated_words(model_path))
    if data.get("model_sha256") != model_id:
        return {}, _("the analysis sidecar {path} was made for another model: {what}").format(
            path=path, what=uncalibrated_words(model_path))
    try:
        float(data["errors"]["value_sd"])
        for entry in entries(data):
            HandValues.from_json(entry["hand_values"])
    except (KeyError, TypeError, ValueError) as err:
        return data, _("the analysis sidecar {path} is damaged ({error}): {what}").format(
            path=path, error=err, what=uncalibrated_words(model_path))
    try:
        if "playout_policy" in data:
            PlayoutPolicy.from_json(data["playout_policy"])
    except ValueError as err:
        return data, _("the analysis sidecar {path} is damaged ({error}): the network plays the analysis's "
                       "playouts, several times slower; {command} fits the policy again").format(
            path=path, error=err, command=f"{DISTIL_COMMAND} --model {model_path}")
    return data, None


def entries(data: dict) -> list[dict]:
    """A sidecar's tables, each {"hand_values", and where measured "errors"}: the standard 1 v 1 one at the top of
    the sidecar, then its "variants" (other presets, 2 v 2), each with its rules in its table."""
    top = {k: data[k] for k in ("hand_values", "errors") if k in data}
    variants = data.get("variants", [])
    if not isinstance(variants, list):
        raise TypeError(_("its variants are not a list"))
    return ([top] if top else []) + variants


def made_for(entry: dict, rules: Rules) -> bool:
    """Whether a sidecar entry's table was made for `rules` (False for an entry too damaged to say)."""
    try:
        return Rules().with_options(**entry["hand_values"]["rules"]) == rules
    except (KeyError, TypeError, ValueError):
        return False


def entry_for(data: dict, rules: Rules) -> dict | None:
    """The sidecar's entry ({"hand_values", "errors"}) whose table was made for `rules`, or None."""
    try:
        return next((entry for entry in entries(data) if made_for(entry, rules)), None)
    except TypeError:  # variants that are not a list
        return None


def _object(data) -> dict:
    if not isinstance(data, dict):
        raise ValueError(_("not a JSON object"))
    return data


def read_sidecar(model_path, model_id: str) -> dict:
    """The model's sidecar, {} if there is none, it is unreadable, or it was made for another model."""
    return _sidecar(model_path, model_id, language())[0]


def sidecar_problem(model_path, model_id: str) -> str | None:
    """Why the model's sidecar cannot be used (missing, damaged, another model's, a damaged table), in one line
    that says what it means for the numbers and what to do; None where it can."""
    return _sidecar(model_path, model_id, language())[1]


@lru_cache(maxsize=8)
def for_model(model_path, model_id: str, rules: Rules) -> HandValues | None:
    """The model's hand-value table for `rules`, or None (none made for these rules, or a damaged one)."""
    entry = entry_for(read_sidecar(model_path, model_id), rules)
    try:
        return HandValues.from_json(entry["hand_values"]) if entry else None
    except (KeyError, TypeError, ValueError):
        return None


@lru_cache(maxsize=8)
def policy_for(model_path, model_id: str) -> PlayoutPolicy | None:
    """The model's playout policy (analysis/policy.py), or None (none fitted, or a damaged one)."""
    return read_policy(read_sidecar(model_path, model_id))


def forget() -> None:
    """Read the sidecars again next time (after writing one)."""
    _sidecar.cache_clear()
    for_model.cache_clear()
    policy_for.cache_clear()
