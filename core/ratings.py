"""Multiplayer ratings with openskill's Plackett–Luce model (a maintained library, not our own Elo).

Every seat of a game is a one-player team; ``rate`` takes the seats' ratings and finishing ranks
(1 = first, equal ranks tie) and returns the new ratings in the same order. The ordinal
``mu - 3 sigma`` (openskill's conservative estimate) orders leaderboards and Swiss pairings.
The model's name, its parameters and the library's version are written into every tournament
(``describe``), so an audit re-rates with the same model and says so when its library differs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

MODEL_NAME = "openskill.PlackettLuce"


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class RatingModel:
    """openskill's PlackettLuce with its default parameters (mu 25, sigma 25/3)."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce  # loaded by the first model made, not by every importer of Rating

        self.model = PlackettLuce()

    def initial(self) -> Rating:
        return Rating(float(self.model.mu), float(self.model.sigma))

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        teams = [[self.model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        rated = self.model.rate(teams, ranks=[float(rank) for rank in ranks])
        return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]

    def describe(self) -> dict[str, Any]:
        return {"name": MODEL_NAME, "openskill": version("openskill"), "mu": float(self.model.mu),
                "sigma": float(self.model.sigma)}
