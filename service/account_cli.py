"""``hourglass account``: the operator's tool for accounts, on the server's Redis.

    hourglass account create NAME [--scopes play,bots,tournaments] [--admin]
    hourglass account list
    hourglass account disable NAME|ID      (its keys stop working at once)
    hourglass account enable NAME|ID
    hourglass account grant NAME|ID [--requests N] [--work N] [--live-games N]   (0: the default)
    hourglass account invite               (a single-use sign-up code, for HOURGLASS_SIGNUP=invite)

It reads ``REDIS_URL`` like every process (without it, the embedded server under ``./var/``).
``create`` prints the account's first key once; only its sha256 is kept. ``--admin`` adds the
admin scope, which only this command gives: an admin key may list, disable, enable and grant
accounts and make invites over HTTP.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from core.accounts import USER_SCOPES, AccountNotFound, Accounts, NameTaken
from domain.core import Rejected


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hourglass account", description="accounts, their keys and budgets")
    sub = p.add_subparsers(dest="command", required=True)
    create = sub.add_parser("create", help="a new account; prints its first key (shown once)")
    create.add_argument("name")
    create.add_argument("--scopes", default=",".join(USER_SCOPES), help="comma-separated (default: %(default)s)")
    create.add_argument("--admin", action="store_true", help="add the admin scope")
    sub.add_parser("list", help="every account")
    for name in ("disable", "enable"):
        sub.add_parser(name, help=f"{name} an account").add_argument("account", help="its name or id")
    grant = sub.add_parser("grant", help="raise an account's budgets (0: back to the default)")
    grant.add_argument("account", help="its name or id")
    grant.add_argument("--requests", type=int, help="requests per rate-limit window")
    grant.add_argument("--work", type=int, help="units of work per work period")
    grant.add_argument("--live-games", type=int, help="live games at once")
    sub.add_parser("invite", help="a single-use sign-up code")
    return p


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    from core.connection import get_redis, plain_redis

    registry = Accounts(plain_redis(get_redis()))
    try:
        return _run(registry, args)
    except (AccountNotFound, NameTaken) as exc:
        print(f"hourglass account: {exc}", file=sys.stderr)
        return 1
    except Rejected as exc:
        print(f"hourglass account: {exc.message}", file=sys.stderr)
        return 2


def _run(registry: Accounts, args: argparse.Namespace) -> int:
    if args.command == "create":
        scopes = [s.strip() for s in args.scopes.split(",") if s.strip()] + (["admin"] if args.admin else [])
        created = registry.create(args.name, scopes, allow_admin=True, label="cli")
        print(json.dumps(created, indent=2))
        print("hourglass account: the key above is shown only now; keep it", file=sys.stderr)
    elif args.command == "list":
        for account in registry.listing(limit=10_000):
            grants = " ".join(f"{k}={v}" for k, v in sorted(account.grants.items()))
            print(f"{account.account_id}  {account.name:<32} {account.status:<8} {account.created}  {grants}".rstrip())
    elif args.command in ("disable", "enable"):
        target = registry.find(args.account)
        changed = registry.disable(target.account_id) if args.command == "disable" else registry.enable(target.account_id)
        print(f"{changed.name}: {changed.status}")
    elif args.command == "grant":
        target = registry.find(args.account)
        changed = registry.grant(target.account_id, requests=args.requests, work=args.work, live_games=args.live_games)
        print(f"{changed.name}: {json.dumps(dict(changed.grants), sort_keys=True)}")
    else:
        print(registry.invite())
    return 0
