"""Provides the statistics the arena reports: a win rate with a 95% interval clustered by seed
pair, and calibration (reliability table, expected calibration error) of win-probability values."""

from __future__ import annotations

import math

Z95 = 1.959964


def win_rate_interval(pair_scores) -> tuple[float, float, float]:
    """Mean of per-pair scores (wins in the pair / 2) and its 95% normal interval, clipped to [0, 1].

    Duplicate games of one seed pair share their cards, so the pair is the independent unit.
    """
    xs = list(pair_scores)
    n = len(xs)
    if n == 0:
        raise ValueError("no games were played")
    mean = sum(xs) / n
    if n == 1:
        return mean, 0.0, 1.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def reliability(values, outcomes, bins: int = 10) -> tuple[list[dict], float]:
    """Reliability table over `bins` equal bins of predicted probability, and the expected
    calibration error (each prediction weighted equally)."""
    values, outcomes = list(values), list(outcomes)
    if len(values) != len(outcomes) or not values:
        raise ValueError("calibration needs as many outcomes as values, and at least one")
    rows = [{"low": i / bins, "high": (i + 1) / bins, "count": 0, "predicted": 0.0, "observed": 0.0}
            for i in range(bins)]
    for v, won in zip(values, outcomes, strict=True):
        row = rows[min(bins - 1, max(0, int(v * bins)))]
        row["count"] += 1
        row["predicted"] += v
        row["observed"] += float(won)
    ece = 0.0
    for row in rows:
        if row["count"]:
            row["predicted"] /= row["count"]
            row["observed"] /= row["count"]
            ece += row["count"] / len(values) * abs(row["predicted"] - row["observed"])
    return rows, ece


def _logit(v: float) -> float:
    v = min(max(v, 1e-6), 1 - 1e-6)
    return math.log(v / (1 - v))


def _sigmoid(z: float) -> float:
    """1 / (1 + e^-z) without overflow for any z."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def platt(v: float, a: float, b: float) -> float:
    """A probability rescaled by Platt scaling: sigmoid(a * logit(v) + b)."""
    return _sigmoid(a * _logit(v) + b)


def _log_loss(pairs, a: float, b: float) -> float:
    """The cross-entropy of sigmoid(a * x + b) against the targets y of the (x, y) pairs."""
    total = 0.0
    for x, y in pairs:
        z = a * x + b  # log(1 + e^z) - y z, written so that no large z overflows
        total += max(z, 0.0) + math.log1p(math.exp(-abs(z))) - y * z
    return total


def fit_platt(values, outcomes, iterations: int = 50) -> tuple[float, float]:
    """Platt scaling: (a, b) such that sigmoid(a * logit(v) + b) best predicts the outcomes (maximum
    likelihood, Newton's method on the two parameters). As in Platt (1999) the targets are
    (wins + 1) / (wins + 2) and 1 / (losses + 2) rather than 1 and 0, so that a few games the values
    happen to separate perfectly still give a finite fit."""
    values, outcomes = list(values), list(outcomes)
    wins = sum(1 for y in outcomes if y)
    losses = len(outcomes) - wins
    if not wins or not losses:
        raise ValueError("calibration needs both wins and losses")
    high, low = (wins + 1) / (wins + 2), 1 / (losses + 2)
    pairs = [(_logit(v), high if y else low) for v, y in zip(values, outcomes, strict=True)]
    a, b = 1.0, 0.0
    loss = _log_loss(pairs, a, b)
    for _ in range(iterations):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in pairs:
            p = _sigmoid(a * x + b)
            r, w = p - y, p * (1 - p)
            ga, gb = ga + r * x, gb + r
            haa, hab, hbb = haa + w * x * x, hab + w * x, hbb + w
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        step = 1.0  # Newton's step, halved until the fit improves (a full step can overshoot)
        while step > 1e-6 and (new := _log_loss(pairs, a - step * da, b - step * db)) > loss:
            step /= 2
        if step <= 1e-6:
            break
        a, b, loss = a - step * da, b - step * db, new
        if step * (abs(da) + abs(db)) < 1e-9:
            break
    return a, b
