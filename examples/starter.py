"""What every starter bot shares: command-line options, and playing one game in pull or push mode.

    python examples/orleans_bot.py                      # pull: register, play one game vs built-in bots
    python examples/orleans_bot.py --mode push          # push: serve on 127.0.0.1:9000 (allow-list it)
    python examples/orleans_bot.py --server http://host:8000 --games 3

Pull mode needs nothing but a running server (``make run``). Push mode needs the server to be
allowed to call you: start it with ``HOURGLASS_BOT_HOSTS=127.0.0.1:9000 make run``.

A bot belongs to an account: with ``HOURGLASS_KEY`` (an account key, ``hga_…``) the bot is
registered to that account; without it the starter signs up a fresh account and prints its key.
"""
from __future__ import annotations

import argparse
import os
import secrets
import sys
import threading
from typing import Any

from hourglass_client import Bot, Client
from hourglass_client.client import StreamEvent


def options(game: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"A starter bot for {game}.")
    p.add_argument("--server", default=os.environ.get("HOURGLASS_URL", "http://127.0.0.1:8000"))
    p.add_argument("--mode", choices=("pull", "push"), default="pull")
    p.add_argument("--game", default=game, help="the game to play (the generic bot plays any)")
    p.add_argument("--players", type=int, default=3, help="seats in the game; the others are built-in bots")
    p.add_argument("--opponent", default="greedy", help="built-in bot for the other seats (random, greedy…)")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--name", default=None, help="the bot's registered name (default: a fresh one)")
    p.add_argument("--port", type=int, default=9000, help="push mode: the port to serve on")
    p.add_argument("--deadline", type=float, default=30.0, help="seconds per move")
    p.add_argument("--key", default=os.environ.get("HOURGLASS_KEY"),
                   help="your account key (default: $HOURGLASS_KEY; none: sign up a fresh account)")
    return p.parse_args()


def seats(bot_id: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    others = [{"name": f"{args.opponent}-{i}", "kind": "bot", "bot": args.opponent} for i in range(1, args.players)]
    return [{"bot_id": bot_id, "deadline_s": args.deadline}, *others]


def report(client: Client, game_id: str, seat: int) -> None:
    summary = client.game(game_id)
    result = summary["result"]
    mine = next(r for r in result["ranking"] if r["seat"] == seat)
    shared = f" (a cooperative game: everyone {result['outcome']} together)" if "outcome" in result else ""
    print(f"game {game_id} finished: rank {mine['rank']} of {len(summary['seats'])}, score {mine['score']}{shared} — "
          f"watch it at {client.base}/games/{game_id}", flush=True)


def account_client(server: str, key: str | None) -> Client:
    """A client that holds an account key: ``key``, or a freshly signed-up account's."""
    if key:
        return Client(server, key)
    account = Client(server).sign_up(f"starter-{secrets.token_hex(4)}")
    print(f"signed up account {account['name']}; keep its key (export HOURGLASS_KEY=...): {account['key']}",
          flush=True)
    return Client(server, account["key"])


def main(bot: Bot, game: str) -> int:
    args = options(game)
    client = account_client(args.server, args.key)
    name = args.name or f"starter-{args.game}-{secrets.token_hex(3)}"
    if args.mode == "pull":
        return play_pull(bot, client, name, args)
    return play_push(bot, client, name, args)


def play_pull(bot: Bot, client: Client, name: str, args: argparse.Namespace) -> int:
    registered = client.register_bot(name, "pull")
    print(f"registered pull bot {name} ({registered['id']}); keep its token: {registered['token']}", flush=True)
    me = client.with_token(registered["token"])
    stop = threading.Event()
    finished: list[StreamEvent] = []

    def on_end(event: StreamEvent) -> None:
        finished.append(event)
        report(client, event.data["game"], event.data["seat"])

    player = threading.Thread(target=bot.play, args=(me, registered["id"]),
                              kwargs={"games": args.games, "stop": stop, "on_game_end": on_end}, daemon=True)
    player.start()
    for _ in range(args.games):
        created = client.create_game(args.game, seats(registered["id"], args))
        print(f"created game {created['id']} ({args.game}, {args.players} seats)", flush=True)
    player.join()
    return 0 if len(finished) == args.games else 1


def play_push(bot: Bot, client: Client, name: str, args: argparse.Namespace) -> int:
    secret = secrets.token_hex(32)
    with bot.serve(secret, port=args.port) as server:
        registered = client.register_bot(name, "http", url=server.url, secret=secret)
        print(f"registered push bot {name} ({registered['id']}) at {server.url}", flush=True)
        for _ in range(args.games):
            created = client.create_game(args.game, seats(registered["id"], args))
            print(f"created game {created['id']}; the service calls {server.url} for every move", flush=True)
            for event in client.follow_game(created["id"]):
                if event.event == "end":
                    break
            report(client, created["id"], 0)
        print(f"{server.calls} calls answered, {server.refused} refused (bad signature)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit("run one of the bots: examples/orleans_bot.py, examples/artificium_bot.py, examples/any_game_bot.py")
