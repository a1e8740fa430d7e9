"""What the Orléans page must show for a view (domain/orleans/game.py view())."""
from __future__ import annotations

from typing import Any


def check_drawn(page: Any, view: dict[str, Any]) -> None:
    """Header, map pieces, deeds and every seat's board equal the view."""
    assert page.inner_text("[data-testid=round]") == f"{view['round']} / {view['rounds']}"
    board = view["board"]
    assert page.locator("#map [data-testid=station]").count() == len(board["stations"])
    assert page.locator("#map [data-testid=road-good]").count() == sum(len(c["goods"]) for c in board["connections"])
    assert page.locator("#map line").count() == len(board["connections"]) == 43
    assert page.locator("#map .town").count() == len(board["towns"]) == 23
    filled = sum(1 for d in board["deeds"] for s in d["spaces"] if s["seat"] is not None)
    assert page.locator("[data-testid=deed-filled]").count() == filled
    assert page.locator(".deed").count() == len(board["deeds"])
    assert page.locator("#map [data-testid=merchant]").count() == len(view["seats"])
    assert f"technology tiles {board['technology_tiles']}" in page.inner_text("[data-testid=supply]")
    for seat in view["seats"]:
        card = page.locator(f"[data-testid=player][data-seat='{seat['seat']}']")
        assert card.locator("[data-testid=coins]").inner_text() == str(seat["coins"])
        assert card.locator("[data-testid=citizens]").inner_text() == str(seat["citizens"])
        assert card.locator("[data-testid=bag]").inner_text() == str(seat["bag_count"])
        market = ", ".join(t.removeprefix("start_") for t in seat["market"]) or "–"
        assert card.locator("[data-testid=market]").inner_text() == market
        placed = sum(1 for p in seat["places"] for s in p["spaces"] if s["holds"] not in (None, "tech"))
        techs = sum(1 for p in seat["places"] for s in p["spaces"] if s["holds"] == "tech")
        assert card.locator("[data-testid=placed]").count() == placed
        assert card.locator("[data-testid=tech-tile]").count() == techs
        assert card.locator("[data-testid=place-tile]").count() == sum(1 for p in seat["places"] if p["stack"])
        merchant = page.locator(f"#map [data-testid=merchant][data-seat='{seat['seat']}']")
        assert merchant.get_attribute("data-town") == seat["merchant"]
        marker = page.locator(f"[data-testid=dev-marker][data-seat='{seat['seat']}']")
        assert marker.get_attribute("data-position") == str(seat["development_position"])
