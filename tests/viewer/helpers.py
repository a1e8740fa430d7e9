"""Games for the viewer tests, played through the real GameService, and page helpers.

Every seat's moves (human seats' too) are chosen by the game's ``greedy`` policy and applied with
``GameService.apply`` exactly as the API applies them; SYSTEM steps take the first legal move,
as the worker does.
"""
from __future__ import annotations

from typing import Any

from core.games import Game, GameService
from domain.bots import bot_rng, get_bot
from domain.core import SYSTEM
from domain.games import fold

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Flo"]


def create(service: GameService, game: str, players: int, *, edition: str | None = None, humans: int = 1) -> dict[str, Any]:
    """A new game with ``humans`` human seats first (they get tokens), greedy bots after."""
    seats = [{"name": NAMES[i], "kind": "human"} if i < humans else {"name": NAMES[i], "kind": "bot", "bot": "greedy"}
             for i in range(players)]
    body: dict[str, Any] = {"game": game, "seats": seats}
    if edition:
        body["edition"] = edition
    created = service.create(body)
    service.created.append(created["id"])  # type: ignore[attr-defined]
    return created


def advance(service: GameService, game_id: str, max_commands: int | None = None) -> int:
    """Apply moves until the game ends or ``max_commands`` were applied; returns how many."""
    applied = 0
    while max_commands is None or applied < max_commands:
        game = service.load(game_id)
        if game.finished:
            break
        actor = SYSTEM if SYSTEM in game.to_act else min(a for a in game.to_act if a != SYSTEM)
        service.apply(game_id, actor, _choose(game, actor), expected_version=game.version)
        applied += 1
        assert applied < 20_000
    return applied


def _choose(game: Game, actor: Any) -> Any:
    moves = game.rules.legal_moves(game.state, actor)
    if actor == SYSTEM:
        return moves[0]
    policy = get_bot("greedy", game.rules.name)
    return policy(game.rules, game.state, actor, moves, bot_rng(game.info.seed, game.game_id, actor, game.version))


def view_at(service: GameService, game_id: str, version: int, seat: int | None = None) -> dict[str, Any]:
    past = service.state_at(game_id, version)
    view: dict[str, Any] = past.rules.view(past.state, seat)
    return view


def to_act_at(service: GameService, game_id: str, version: int) -> set[Any]:
    return set(service.state_at(game_id, version).to_act)


def phases(service: GameService, game_id: str) -> list[tuple[int, str, set[Any]]]:
    """(version, phase, to_act) after every step, from one fold over the stored events."""
    rules = service.load(game_id).rules
    ends = set(service.batch_ends(game_id))
    state, out = None, []
    for entry in service.entries(game_id):
        state = fold(rules, [rules.event_from_json(entry.data)], state)
        if entry.seq in ends:
            out.append((entry.seq, rules.view(state, None)["phase"], set(rules.to_act(state))))
    return out


# ---- the page ---------------------------------------------------------------------------------


def wait_version(page: Any, version: int) -> None:
    page.wait_for_function(
        "v => document.body.dataset.version === String(v) && document.body.dataset.loading === 'false'",
        arg=version, timeout=15_000)


def open_game(page: Any, server: str, game_id: str) -> None:
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("body[data-ready=true]", timeout=20_000)


def go_to_step(page: Any, index: int, version: int) -> None:
    """Move the scrubber to step ``index`` (whose batch ends at ``version``) and wait for it."""
    page.locator("#scrubber").fill(str(index))
    wait_version(page, version)


def log_lines(page: Any) -> list[str]:
    lines: list[str] = page.locator("#log li .text").all_inner_texts()
    return lines


def seat_token(created: dict[str, Any], seat: int) -> str:
    token: str = created["seats"][seat]["token"]
    return token


def view_as(page: Any, token: str, seat: int) -> None:
    """Type a seat token into the page, as a player would, and wait for that seat's view."""
    page.fill("#token", token)
    page.click("#seat-form button[type=submit]")
    page.wait_for_selector(f"body[data-viewer='{seat}']", state="attached", timeout=15_000)


def spectate(page: Any) -> None:
    page.click("#spectate")
    page.wait_for_selector("body[data-viewer=spectator]", state="attached", timeout=15_000)
