"""Provides the figures of a match: A's win rate with its interval, per-side tallies, calibration, the report."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..i18n import _, ngettext, number, pgettext
from .match import GameResult
from .stats import reliability, win_rate_interval

PER_GAME = ("caidas", "limpias", "rondas")


@dataclass(frozen=True)
class SideSummary:
    """One policy's figures over a match."""

    policy: str
    wins: int
    mean_points: float
    decision_ms: float
    caidas_per_game: float
    limpias_per_game: float
    rondas_per_game: float
    ece: float | None = None
    """Expected calibration error of its win-probability values (with calibration, if it reports any)."""
    reliability: tuple = ()
    """The reliability table's rows (dicts: low, high, count, predicted, observed)."""

    def to_json(self) -> dict:
        out = asdict(self)
        if self.ece is None:
            del out["ece"], out["reliability"]
        else:
            out["reliability"] = list(self.reliability)
        return out


@dataclass(frozen=True)
class MatchSummary:
    """A match from A's side: its win rate with a 95% interval by seed pair, and both sides' figures."""

    games: int
    pairs: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_point_diff: float
    a: SideSummary
    b: SideSummary
    calibration_requested: bool = False

    def to_json(self, **extra) -> dict:
        """The figures as the arena's --json prints them (`extra` keys appended)."""
        out = {"a": self.a.policy, "b": self.b.policy, "games": self.games, "pairs": self.pairs,
               "win_rate": self.win_rate, "ci_low": self.ci_low, "ci_high": self.ci_high,
               "mean_point_diff": self.mean_point_diff}
        out["a"], out["b"] = self.a.to_json(), self.b.to_json()
        out["decision_ms_a"], out["decision_ms_b"] = self.a.decision_ms, self.b.decision_ms
        if self.a.ece is not None:
            out["ece"] = self.a.ece
        out["calibration_requested"] = self.calibration_requested
        return {**out, **extra}


def summarize(a: str, b: str, results: list[GameResult], calibration: bool = False) -> MatchSummary:
    """The figures the arena reports for A (and per policy)."""
    pairs: dict[int, list[float]] = {}
    for r in results:
        pairs.setdefault(r.pair, []).append(float(r.a_won))
    rate, low, high = win_rate_interval([sum(v) / len(v) for v in pairs.values()])
    n = len(results)
    sides = []
    for k, name in (("a", a), ("b", b)):
        tallies = [getattr(r, k) for r in results]
        decisions = sum(t.decisions for t in tallies)
        figures = {f"{key}_per_game": round(sum(getattr(t, key) for t in tallies) / n, 3) for key in PER_GAME}
        values = [vw for t in tallies for vw in t.values]
        ece, table = None, ()
        if calibration and values:
            rows, raw = reliability([v for v, _ in values], [w for _, w in values])
            ece, table = round(raw, 4), tuple(rows)
        sides.append(SideSummary(name, sum(r.a_won == (k == "a") for r in results),
                                 round(sum(t.points for t in tallies) / n, 2),
                                 round(1000 * sum(t.seconds for t in tallies) / max(1, decisions), 4), **figures,
                                 ece=ece, reliability=table))
    return MatchSummary(n, len(pairs), round(rate, 4), round(low, 4), round(high, 4),
                        round(sum(r.a.points - r.b.points for r in results) / n, 2), sides[0], sides[1], calibration)


def _figure(value) -> str:
    """A figure of the table as the language writes it, with the decimals it was kept with ("21.5" / "21,5")."""
    text = str(value)
    return number(value, len(text.partition(".")[2])) if isinstance(value, float) else text


def format_summary(s: MatchSummary, rules: str, seed: int) -> str:
    """A plain-text report of a match's figures."""
    a, b = s.a, s.b
    games = ngettext("{n} games on {pairs} duplicate seed pair", "{n} games on {pairs} duplicate seed pairs",
                     s.pairs).format(n=s.games, pairs=s.pairs)  # every seed is played twice: 2 games or more
    lines = [_("arena: {a} (A) vs {b} (B), {games}, rules {rules}, seed {seed}").format(
                 a=a.policy, b=b.policy, games=games, rules=rules, seed=seed),
             _("A win rate {rate}  95% CI [{low}, {high}]   mean point difference {diff}").format(
                 rate=number(s.win_rate, 3), low=number(s.ci_low, 3), high=number(s.ci_high, 3),
                 diff=("-" if s.mean_point_diff < 0 else "+") + number(abs(s.mean_point_diff), 2)),
             "", f"{'':22}{'A ' + a.policy:>18}{'B ' + b.policy:>18}"]
    for key, label in (("wins", pgettext("arena", "wins")), ("mean_points", pgettext("arena", "final points")),
                       ("caidas_per_game", pgettext("arena", "caídas / game")),
                       ("limpias_per_game", pgettext("arena", "limpias / game")),
                       ("rondas_per_game", pgettext("arena", "rondas / game")),
                       ("decision_ms", pgettext("arena", "ms / decision"))):
        lines.append(f"{label:22}{_figure(getattr(a, key)):>18}{_figure(getattr(b, key)):>18}")
    for k, side in (("A", a), ("B", b)):
        if side.ece is not None:
            heads = (pgettext("arena", "bin"), pgettext("arena", "decisions"), pgettext("arena", "predicted"),
                     pgettext("arena", "observed"))
            lines += ["", _("calibration of {side} {policy}: expected calibration error {ece}").format(
                          side=k, policy=side.policy, ece=number(side.ece, 4)),
                      f"{heads[0]:>12}{heads[1]:>11}{heads[2]:>11}{heads[3]:>10}"]
            for row in side.reliability:
                if row["count"]:
                    lines.append(f"{number(row['low'], 1):>5}-{number(row['high'], 1):<5} {row['count']:>11}"
                                 f"{number(row['predicted'], 3):>11}{number(row['observed'], 3):>10}")
        elif s.calibration_requested:
            lines.append(_("{side} {policy} reports no value: no calibration").format(side=k, policy=side.policy))
    return "\n".join(lines)
