"""What the Cathedral page must show for a view (domain/cathedral/game.py view()), and what it must
never show: the contents of the bags and of the face-down Event, Hour Glass, Blueprint and
Workshop piles (the view carries only their counts; the page must not invent more)."""
from __future__ import annotations

from typing import Any

from domain.cathedral.model import State


def attrs(page: Any, selector: str, *names: str) -> list[tuple[str | None, ...]]:
    """The given attributes of every element matching ``selector``, in document order."""
    found: list[tuple[str | None, ...]] = page.eval_on_selector_all(
        selector, "(nodes, names) => nodes.map((n) => names.map((a) => n.getAttribute(a)))", list(names))
    return [tuple(row) for row in found]


def check_drawn(page: Any, view: dict[str, Any]) -> None:
    """Header, map, Cathedral, orders, town, bags and every seat equal the view."""
    round_text = f"{view['round']} / {view['rounds']}" if view["round"] else "set-up"
    assert page.inner_text("[data-testid=round]") == round_text
    assert page.inner_text("[data-testid=sections]") == f"{view['sections']['built']} / {view['sections']['needed']} sections"
    _check_map(page, view)
    _check_orders(page, view)
    _check_town(page, view)
    _check_seats(page, view)


def _check_map(page: Any, view: dict[str, Any]) -> None:
    board = view["board"]
    assert sorted(a[0] for a in attrs(page, "#cathedral-map [data-testid=place]", "data-place")) == sorted(board["places"])
    assert dict(attrs(page, "#cathedral-map [data-testid=route]", "data-route", "data-kind")) == {
        r["route"]: r["kind"] for r in board["routes"]}
    lying = {str(i): item for i, item in enumerate(view["spots"]) if item is not None}
    assert dict(attrs(page, "#cathedral-map [data-testid=spot-item]", "data-spot", "data-item")) == lying
    assert page.locator("#cathedral-map [data-testid=spot-empty]").count() == len(view["spots"]) - len(lying)
    assert dict(attrs(page, "#cathedral-map [data-testid=builder]", "data-seat", "data-place")) == {
        str(s["seat"]): s["builder"] for s in view["seats"]}
    workshops = attrs(page, "#cathedral-map [data-testid=workshop]", "data-place", "data-tile", "data-done", "data-delivered")
    assert workshops == [(w["place"], w["tile"], "true" if w["done"] else "false", str(len(w["delivered"])))
                         for w in view["workshops"]]


def _check_orders(page: Any, view: dict[str, Any]) -> None:
    built = attrs(page, "[data-testid=section]", "data-section", "data-built")
    assert built == [(str(n), "true" if n <= view["sections"]["built"] else "false")
                     for n in range(1, view["sections"]["needed"] + 1)]
    glass = view["hour_glass"]
    assert attrs(page, "[data-testid=hour-glass]", "data-tile") == ([(glass["tile"],)] if glass else [])
    if glass:
        delivered = [d for (d,) in attrs(page, "[data-testid=hour-glass] [data-testid=need]", "data-delivered")]
        assert delivered.count("true") == len(glass["delivered"]) and len(delivered) == len(glass["needs"])
    assert page.inner_text("[data-testid=hour-glass-stack-count]") == str(view["hour_glass_stack"])
    events = view["events"]
    assert page.inner_text("[data-testid=event-stack-count]") == str(events["stack"])
    order = events["order"]
    assert attrs(page, "[data-testid=active-order]", "data-tile") == ([(order["tile"],)] if order else [])
    assert [t for (t,) in attrs(page, "[data-testid=discarded-event]", "data-tile")] == [e["tile"] for e in events["discard"]]
    assert page.inner_text("[data-testid=blueprint-stack-count]") == str(view["blueprints"]["face_down"])
    turned = [r for (r,) in attrs(page, "[data-testid=blueprints-turned] [data-reward]", "data-reward")]
    assert turned == view["blueprints"]["turned"]


def _check_town(page: Any, view: dict[str, Any]) -> None:
    spaces = dict(attrs(page, "[data-testid=action-space]", "data-space", "data-follower"))
    assert spaces == {space: follower or "" for space, follower in view["spaces"].items()}
    assert page.locator("[data-testid=action-space] [data-testid=placed]").count() == sum(
        1 for f in view["spaces"].values() if f)
    bags = {b: page.inner_text(f"[data-testid=bag][data-bag={b}] [data-testid=bag-count]") for b in view["bags"]}
    assert bags == {b: str(n) for b, n in view["bags"].items()}
    assert page.inner_text("[data-testid=supply-monks]") == str(view["supply"]["monks"])
    assert page.inner_text("[data-testid=supply-rosettes]") == str(view["supply"]["rosettes"])
    removed = [f for (f,) in attrs(page, "[data-testid=removed] [data-follower]", "data-follower")]
    assert removed == view["removed"]


def _check_seats(page: Any, view: dict[str, Any]) -> None:
    acting = sorted(a for a in view["to_act"] if isinstance(a, int))
    assert page.get_attribute("[data-testid=to-act]", "data-seats") == ",".join(map(str, acting))
    for seat in view["seats"]:
        card = page.locator(f"[data-testid=seat][data-seat='{seat['seat']}']")
        assert card.locator("[data-testid=knapsack-slot]").count() == 5
        held = [card.locator("[data-testid=knapsack-item]").nth(i).get_attribute("data-item")
                for i in range(card.locator("[data-testid=knapsack-item]").count())]
        assert held == seat["knapsack"]
        assert card.get_attribute("data-to-act") == ("true" if seat["seat"] in acting else "false")
        own_turn = seat["seat"] == view["active"] and view["stage"] != "finished"
        assert card.locator("[data-testid=drawn]").count() == (1 if own_turn and view["drawn"] else 0)
        assert card.locator("[data-testid=pending]").count() == (1 if own_turn and view["pending"] else 0)
        owed_icons = f"[data-testid=seat][data-seat='{seat['seat']}'] [data-testid=rewards-owed] [data-reward]"
        owed = [r for (r,) in attrs(page, owed_icons, "data-reward")]
        assert owed == (view["rewards"] if own_turn else [])


def hidden_tiles(state: State) -> set[str]:
    """Tiles whose identity nobody at the table knows at this state."""
    return {t.value for t in (*state.event_pool, *state.hour_glass_pool, *state.workshop_box)}


def check_nothing_hidden(page: Any, state: State) -> None:
    """No face-down tile is named anywhere on the page, and piles show backs and counts only."""
    named = {t for (t,) in attrs(page, "[data-tile]", "data-tile")}
    assert not named & hidden_tiles(state), f"face-down tiles on the page: {named & hidden_tiles(state)}"
    html = page.inner_html("#board")
    for tile in hidden_tiles(state):
        assert f'"{tile}"' not in html
    for pile in ("bags", "hour-glass-stack", "event-stack", "blueprint-stack"):
        inside = page.locator(f"[data-testid={pile}] [data-follower], [data-testid={pile}] [data-item], "
                              f"[data-testid={pile}] [data-reward], [data-testid={pile}] [data-tile]")
        assert inside.count() == 0, f"{pile} shows what it holds"
    assert page.inner_text("[data-testid=blueprint-stack-count]") == str(len(state.blueprint_pool))
    counts = {b: page.inner_text(f"[data-testid=bag][data-bag={b}] [data-testid=bag-count]") for b in ("red", "blue", "black")}
    assert counts == {"red": str(len(state.red_bag)), "blue": str(len(state.blue_bag)), "black": str(len(state.black_bag))}
