"""Provides the expected cartón: what the cards captured so far will be worth when the hand ends.

A playout that stops at the end of a deal leaves the hand's cartón unsettled. Instead of a fixed worth a
card, the search can value the piles by the cartón the rules will give at the hand's end (engine's
`carton_points`: 20 cards and up, the team with more, the cut-off), and by the game won when it brings
a team to 40, averaged over how the rest of the hand's cards may still be split.

The split's model comes from expert self-play (`python -m cuarenta_tutor.agents.carton --games 300`
measures it again): of the R cards not yet in a pile at a deal's end, about 4 stay on the table at the
hand's end (discarded under the standard rules), and the difference between the two teams' shares of the
rest is centred on 0 with a variance of about 2.1 R (captures come in lumps of 2 to 4 cards, so more than a
card-by-card coin's R).
"""

from __future__ import annotations

import argparse
import math

from ..engine import DECK_SIZE, TARGET_SCORE, Dealer, HandEnded, State, carton_points, preset

LEFTOVER = 4
"""Cards left on the table at the end of a hand, on average (expert self-play, 1 v 1: 4.11 and 4.07 in 300 games
of seeds 0 and 1)."""
SPLIT_VARIANCE = 2.1
"""Variance of the difference between the teams' shares of the cards still to be captured, per card."""


class ExpectedCarton:
    """Expected cartón points (and game wins) at the end of the hand, for a team, from the piles now."""

    def __init__(self, win_outcome: float):
        self.win_outcome = win_outcome
        self._cache: dict = {}

    def value(self, state: State, team: int) -> float:
        """`team`'s expected cartón points minus the other team's at the hand's end, plus `win_outcome` times
        the chance the cartón wins the game for it (minus for the other), from `state`'s piles and scores."""
        return self.value_at((len(state.piles[0]), len(state.piles[1])), tuple(state.scores), state.dealer,
                             state.rules, team)

    def value_at(self, piles: tuple, scores: tuple, dealer: int, rules, team: int) -> float:
        """`value` of a state given by its pile sizes, scores, dealer and rules."""
        a, b = piles
        key = (a, b, scores, dealer & 1, rules)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._team0(a, b, scores, dealer & 1, rules)
        return found if team == 0 else -found

    def _team0(self, a: int, b: int, scores, dealer_team: int, rules) -> float:
        rest = max(DECK_SIZE - a - b, 0)
        leftover = 0 if rules.leftover_table_cards == "last_capturer" else min(LEFTOVER, rest)
        taken = rest - leftover
        spread = SPLIT_VARIANCE * max(rest, 1)
        total = weights = 0.0
        for x in range(taken + 1):
            d = 2 * x - taken
            w = math.exp(-d * d / (2 * spread))
            carton = carton_points((a + x, b + taken - x), dealer_team, scores, rules)
            worth = carton[0] - carton[1]
            for t in (0, 1):
                if carton[t] and scores[t] + carton[t] >= TARGET_SCORE:
                    worth += self.win_outcome if t == 0 else -self.win_outcome
                    break
            total += w * worth
            weights += w
        return total / weights


def fit(games: int, seed: int = 0) -> dict:
    """Measure LEFTOVER and SPLIT_VARIANCE in `games` games of expert self-play (standard rules, 1 v 1): at
    every deal's end but the hand's last, the piles then; at the hand's end, the cards left on the table and
    how the rest were split, the variance per card of R (not yet in a pile). Returns {"deal_ends", "leftover",
    "split_variance"}."""
    from ..table import Table  # only when measuring
    from .expert import ExpertPolicy

    ends, leftover, squares, rest = 0, 0, 0.0, 0
    for g in range(games):
        table = Table(preset("standard"), [ExpertPolicy(), ExpertPolicy()], Dealer(seed * 1_000_003 + g))
        table.start()
        open_ends: list[tuple[int, int]] = []
        while not table.over:
            step = table.step()
            for e in step.events:
                if isinstance(e, HandEnded):
                    for a, b in open_ends:
                        left = len(e.leftover)
                        d = (e.captured[0] - a) - (e.captured[1] - b)
                        ends, leftover = ends + 1, leftover + left
                        squares, rest = squares + d * d, rest + DECK_SIZE - a - b
                    open_ends = []
            after = step.after
            if after.hand_no == step.before.hand_no and after.deal_no != step.before.deal_no:
                open_ends.append((len(after.piles[0]), len(after.piles[1])))
    return {"deal_ends": ends, "leftover": round(leftover / max(ends, 1), 2),
            "split_variance": round(squares / max(rest, 1), 2)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Measure the expected cartón's split model in expert self-play.")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be 1 or more")
    found = fit(args.games, args.seed)
    print(f"{found['deal_ends']} deal ends in {args.games} games: {found['leftover']} cards left on the table at "
          f"the hand's end (LEFTOVER {LEFTOVER}), split variance {found['split_variance']} a card "
          f"(SPLIT_VARIANCE {SPLIT_VARIANCE})")


if __name__ == "__main__":
    main()
