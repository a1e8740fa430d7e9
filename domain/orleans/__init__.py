"""Orléans (classic 2014 for 2–4 players, 2023 edition for 2–5)."""
from domain.orleans.game import RULES

__all__ = ["RULES"]
