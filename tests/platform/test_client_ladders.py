"""The Python client library's ladder and challenge helpers (``hourglass_client``), against the live
app on a real port: an owner opts two push bots into a ladder, the matchmaker (run in-process, as in
tests/platform/test_ladder.py) plays a rated game, and the client reads the standings, the games and
the history; challenges are made, answered by policy, by the bot's own token and by its owner.
Abuse cases: another account can neither enter nor withdraw the owner's bot, nor answer a challenge
to it, and a second answer is refused."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from hourglass_client import CHALLENGE_POLICIES, ApiError, Client

from tests.platform.conftest import new_account, unique
from tests.platform.ladder_helpers import wipe_ladders
from tests.platform.test_ladder import matchmaker, play_out
from tests.platform.tourney_helpers import SECRET, bot_server
from tests.workers.hg_botserver import BotServer

LADDER = "artificium-2"


@pytest.fixture(autouse=True)
def clean_ladders(conn: redis.Redis) -> Iterator[None]:
    """Ladders are named by game and player count and challenges kept a day: none outlives a test."""
    wipe_ladders(conn)
    yield
    wipe_ladders(conn)
    keys = list(conn.scan_iter(match="hg:ch:*", count=1000))
    if keys:
        conn.delete(*keys)


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> Iterator[BotServer]:
    with bot_server(monkeypatch, slow_s=1.0) as server:
        yield server


def push_bots(api: Client, host: BotServer, made: dict[str, list[str]], n: int = 2) -> list[dict[str, Any]]:
    bots = []
    for path in ("/good", "/first")[:n]:
        bot = dict(api.register_bot(unique("cl"), "http", url=host.url + path, secret=SECRET))
        made["bots"].append(bot["id"])
        bots.append(bot)
    return bots


def test_the_client_enters_a_ladder_and_reads_its_rated_games(
        server: str, conn: redis.Redis, host: BotServer, made: dict[str, list[str]]) -> None:
    owner = Client(server, new_account(conn, made)["key"])
    stranger = Client(server, new_account(conn, made, "stranger")["key"])
    a, b = push_bots(owner, host, made)
    with pytest.raises(ApiError) as refused:  # another account's bot
        stranger.enter_ladder(LADDER, a["id"])
    assert refused.value.status == 403 and refused.value.kind == "FORBIDDEN"
    member = owner.enter_ladder(LADDER, a["id"], deadline_s=1.5)
    assert member["ladder"] == LADDER and member["bot_id"] == a["id"] and member["deadline_s"] == 1.5
    assert owner.enter_ladder(LADDER, a["id"], deadline_s=2)["deadline_s"] == 2  # entering again changes it
    owner.enter_ladder(LADDER, b["id"])
    public = Client(server)  # reading is public
    assert [(row["id"], row["members"], row["players"]) for row in public.ladders()] == [(LADDER, 2, 2)]

    mm = matchmaker(conn)
    assert mm.run()["started"] == 1
    assert len(public.ladder(LADDER)["playing"]) == 1
    played = play_out(conn, made)
    assert mm.run()["settled"] == 1  # and the same pass seats the two again, the other way round
    ladder = public.ladder(LADDER)
    assert len(ladder["playing"]) == 1 and ladder["playing"] != played
    assert {row["bot_id"] for row in ladder["standings"]} == {a["id"], b["id"]}
    assert all(row["games"] == 1 and row["opted_in"] for row in ladder["standings"])
    assert [row["place"] for row in ladder["standings"]] == [1, 2]
    assert [g["game_id"] for g in ladder["games"]] == played and ladder["games"][0]["rated"]
    assert ladder["games"][0]["viewer"] == f"/games/{played[0]}"
    history = public.ladder_history(LADDER)
    assert [h["game"] for h in history] == played and len(history[0]["seats"]) == 2

    with pytest.raises(ApiError) as withdrawn:
        stranger.leave_ladder(LADDER, a["id"])
    assert withdrawn.value.status == 403
    owner.leave_ladder(LADDER, a["id"])
    with pytest.raises(ApiError) as gone:
        owner.leave_ladder(LADDER, a["id"])
    assert gone.value.status == 404
    assert {row["bot_id"]: row["opted_in"] for row in public.ladder(LADDER)["standings"]} == {a["id"]: False,
                                                                                             b["id"]: True}
    with pytest.raises(ApiError) as unknown:
        public.ladder("nosuchgame-2")
    assert unknown.value.status == 404


def test_the_client_makes_and_answers_challenges(
        server: str, conn: redis.Redis, host: BotServer, made: dict[str, list[str]]) -> None:
    owner = Client(server, new_account(conn, made)["key"])
    challenger = Client(server, new_account(conn, made, "challenger")["key"])
    (bot,) = push_bots(owner, host, made, 1)
    public = Client(server)
    assert public.challenge_policy(bot["id"]) == "ask"
    with pytest.raises(ValueError):
        owner.set_challenge_policy(bot["id"], "maybe")
    with pytest.raises(ApiError) as not_owner:
        challenger.set_challenge_policy(bot["id"], "accept_all")
    assert not_owner.value.status == 403

    assert owner.set_challenge_policy(bot["id"], "decline_all") == "decline_all"
    assert public.challenge_policy(bot["id"]) == "decline_all"
    declined = challenger.challenge(bot["id"], "artificium", deadline_s=1.0)
    assert declined["status"] == "declined" and declined["reason"] and declined.get("game_id") is None

    owner.set_challenge_policy(bot["id"], "ask")
    pending = challenger.challenge(bot["id"], "artificium", seat=1, builtin="random", expires_s=60)
    assert pending["status"] == "pending" and pending["seat"] == 1 and pending["bot_id"] == bot["id"]
    assert public.get_challenge(pending["id"])["status"] == "pending"
    with pytest.raises(ApiError) as stranger_answer:  # only the bot or its owner answers
        challenger.accept_challenge(pending["id"])
    assert stranger_answer.value.status == 403
    as_bot = Client(server, bot["token"])  # the bot itself, with its own token, as it would on its stream
    accepted = as_bot.accept_challenge(pending["id"])
    assert accepted["status"] == "accepted" and accepted["game_id"]
    made["games"].append(str(accepted["game_id"]))
    assert accepted["viewer"] == f"/games/{accepted['game_id']}"
    assert public.game(str(accepted["game_id"]))["game"] == "artificium"
    with pytest.raises(ApiError) as twice:
        owner.decline_challenge(pending["id"])
    assert twice.value.status == 409 and twice.value.kind == "NOT_PENDING"

    other = challenger.challenge(bot["id"], "artificium")
    answered = owner.decline_challenge(other["id"], "busy tonight")
    assert answered["status"] == "declined" and answered["reason"] == "busy tonight"
    assert set(CHALLENGE_POLICIES) == {"ask", "accept_all", "accept_rated_peers", "decline_all"}
