"""Accounts: who owns bots, tournaments and seats, and whose budget a request draws from (issue 22).

An account has a unique name and any number of API keys. A key is ``hga_<key id>_<secret>``:
the key id is public (it names the key in listings and revocations), the whole key is shown once
(at sign-up, creation or rotation) and stored only as its sha256 (keys are 256-bit random
strings, so a fast hash suffices, as for seat and bot tokens). Each key carries scopes:

- ``play``: create and join games as the account (its seats are bound to it), the account's
  games and event stream;
- ``bots``: register bots (owned by the account), rotate, delete and open them for entry;
- ``tournaments``: create tournaments (organised by the account), cancel them, withdraw entrants;
- ``admin``: the operator's: list, disable and enable accounts, grant budgets, issue invites.
  Only ``hourglass account create --admin`` (the CLI, on the operator's machine) makes one.

A disabled account's keys stop resolving at once (its index entries are removed and put back
when it is enabled again). Sign-up (``POST /api/v1/accounts``) follows the operator's policy:
``open``, ``invite`` (one single-use invite code per account) or ``closed``.

Redis keys (the plain server, like the bot registry: the global indexes change in one MULTI):
``hg:acct:{<id>}`` (hash: name, created, status, and grants ``grant:<budget>``),
``hg:acct:{<id>}:keys`` (hash: key id -> JSON {scopes, created, label, digest}),
``hg:accts:names`` (lower-case name -> id), ``hg:accts:keys`` (key sha256 -> "<id> <key id>
<scopes>"), ``hg:accts:all`` (ids by creation time), ``hg:accts:invites`` (invite sha256 -> JSON).
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis

from domain.core import Rejected, RejectKind

SCOPES = ("play", "bots", "tournaments", "admin")
USER_SCOPES = ("play", "bots", "tournaments")  # what sign-up grants; admin only from the CLI
SIGNUP_POLICIES = ("open", "invite", "closed")
KEY_PREFIX = "hga_"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$")
MAX_KEYS = 20
GRANTS = ("requests", "work", "live_games")  # budgets the operator may raise (service.limits)
NAMES_KEY = "hg:accts:names"
KEYS_KEY = "hg:accts:keys"
ALL_KEY = "hg:accts:all"
INVITES_KEY = "hg:accts:invites"


def account_key(account_id: str) -> str:
    return f"hg:acct:{{{account_id}}}"


def keys_key(account_id: str) -> str:
    return f"{account_key(account_id)}:keys"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _text(value: Any) -> str | None:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class AccountNotFound(LookupError):
    def __init__(self, who: str) -> None:
        super().__init__(f"no account {who!r}")


class NameTaken(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"the account name {name!r} is taken")


class SignupRefused(PermissionError):
    """Sign-up is closed, or needs an invite code that was not given (or is not valid)."""


@dataclass(frozen=True)
class Account:
    account_id: str
    name: str
    created: str
    status: str  # active | disabled
    grants: Mapping[str, int] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.status == "active"

    def public(self) -> dict[str, Any]:
        return {"id": self.account_id, "name": self.name, "created": self.created, "status": self.status}


@dataclass(frozen=True)
class KeyOwner:
    """What an account key resolves to: the account, the key's id and its scopes."""

    account_id: str
    key_id: str
    scopes: frozenset[str]


def check_scopes(scopes: Iterable[str], *, allow_admin: bool) -> tuple[str, ...]:
    chosen = tuple(sorted(set(scopes)))
    unknown = [s for s in chosen if s not in SCOPES]
    if not chosen or unknown:
        raise Rejected(RejectKind.INVALID_CONFIG, f"scopes: choose from {', '.join(SCOPES)}"
                       + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
    if "admin" in chosen and not allow_admin:
        raise Rejected(RejectKind.INVALID_CONFIG, "the admin scope is given only by an admin key or the operator's CLI")
    return chosen


class Accounts:
    """Accounts on one (plain) Redis connection, any ``decode_responses``."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn

    # -- creation -----------------------------------------------------------------------------

    def create(self, name: str, scopes: Iterable[str] = USER_SCOPES, *, allow_admin: bool = False,
               label: str = "sign-up") -> dict[str, Any]:
        """A new account and its first key; returns the account's public fields plus ``key``,
        ``key_id`` and ``scopes`` (the key is shown only here). Raises Rejected or NameTaken."""
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise Rejected(RejectKind.INVALID_CONFIG, "name must be 2-32 characters: letters, digits, '_', '.', '-', "
                                                      "starting with a letter or digit")
        chosen = check_scopes(scopes, allow_admin=allow_admin)
        account_id = "a" + secrets.token_hex(7)
        if not self.conn.hsetnx(NAMES_KEY, name.lower(), account_id):
            raise NameTaken(name)
        created = _now()
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(account_key(account_id), mapping={"name": name, "created": created, "status": "active"})
        pipe.zadd(ALL_KEY, {account_id: datetime.now(UTC).timestamp()})
        pipe.execute()
        issued = self.issue_key(account_id, chosen, label=label, allow_admin=allow_admin)
        return {**self.get(account_id).public(), **issued}

    def signup(self, name: str, policy: str, invite: str | None) -> dict[str, Any]:
        """Sign-up under the operator's ``policy``. An invite code is taken before the account is
        made (so two sign-ups cannot share one) and given back if the name is refused."""
        if policy == "closed":
            raise SignupRefused("sign-up is closed on this server; ask its operator for an account")
        taken: Any = None
        if policy == "invite":
            if not invite:
                raise SignupRefused("sign-up needs an invite code on this server ('invite')")
            pipe = self.conn.pipeline(transaction=True)
            pipe.hget(INVITES_KEY, digest(invite))
            pipe.hdel(INVITES_KEY, digest(invite))
            taken, removed = pipe.execute()
            if not removed:
                raise SignupRefused("the invite code is not valid (or was used already)")
        try:
            return self.create(name)
        except (Rejected, NameTaken):
            if taken is not None and invite:
                self.conn.hset(INVITES_KEY, digest(invite), taken)
            raise

    def invite(self, by: str = "operator") -> str:
        """A single-use invite code (shown once; stored as its sha256)."""
        code = "hgi_" + secrets.token_urlsafe(18)
        self.conn.hset(INVITES_KEY, digest(code), json.dumps({"created": _now(), "by": by}))
        return code

    # -- keys ---------------------------------------------------------------------------------

    def issue_key(self, account_id: str, scopes: Iterable[str], *, label: str = "", allow_admin: bool = False,
                  key_id: str | None = None) -> dict[str, Any]:
        """A new key (or a new secret for ``key_id``, whose old secret is void at once)."""
        account = self.get(account_id)
        chosen = check_scopes(scopes, allow_admin=allow_admin)
        existing = self._keys(account_id)
        if key_id is None and len(existing) >= MAX_KEYS:
            raise Rejected(RejectKind.INVALID_CONFIG, f"an account has at most {MAX_KEYS} keys; revoke one first")
        key_id = key_id or secrets.token_hex(4)
        secret = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        record: dict[str, Any] = {"scopes": list(chosen), "created": _now(), "label": label[:64],
                                  "digest": digest(secret)}
        old = existing.get(key_id)
        pipe = self.conn.pipeline(transaction=True)
        if old is not None:
            pipe.hdel(KEYS_KEY, old["digest"])
        pipe.hset(keys_key(account_id), key_id, json.dumps(record))
        if account.active:
            pipe.hset(KEYS_KEY, record["digest"], _index_value(account_id, key_id, chosen))
        pipe.execute()
        return {"key": secret, "key_id": key_id, "scopes": list(chosen)}

    def rotate_key(self, account_id: str, key_id: str) -> dict[str, Any]:
        record = self._keys(account_id).get(key_id)
        if record is None:
            raise AccountNotFound(f"{account_id}/{key_id}")
        return self.issue_key(account_id, record["scopes"], label=record.get("label", ""), allow_admin=True,
                              key_id=key_id)

    def revoke_key(self, account_id: str, key_id: str) -> bool:
        record = self._keys(account_id).get(key_id)
        if record is None:
            return False
        pipe = self.conn.pipeline(transaction=True)
        pipe.hdel(KEYS_KEY, record["digest"])
        pipe.hdel(keys_key(account_id), key_id)
        pipe.execute()
        return True

    def keys(self, account_id: str) -> list[dict[str, Any]]:
        """The account's keys without their secrets or digests."""
        return [{"id": kid, "scopes": r["scopes"], "created": r["created"], "label": r.get("label", "")}
                for kid, r in sorted(self._keys(account_id).items(), key=lambda kv: kv[1]["created"])]

    def resolve(self, secret: str) -> KeyOwner | None:
        """The key's account, id and scopes; None for an unknown, revoked or disabled account's key."""
        if not secret.startswith(KEY_PREFIX):
            return None
        raw: Any = self.conn.hget(KEYS_KEY, digest(secret))
        found = _text(raw)
        if not found:
            return None
        account_id, key_id, scopes = found.split(" ", 2)
        return KeyOwner(account_id, key_id, frozenset(scopes.split(",")))

    def _keys(self, account_id: str) -> dict[str, dict[str, Any]]:
        raw: Any = self.conn.hgetall(keys_key(account_id))
        return {_text(k) or "": json.loads(_text(v) or "{}") for k, v in raw.items()}

    # -- reading and the operator's changes ---------------------------------------------------------

    def get(self, account_id: str) -> Account:
        raw: Any = self.conn.hgetall(account_key(account_id))
        if not raw:
            raise AccountNotFound(account_id)
        meta = {_text(k) or "": _text(v) or "" for k, v in raw.items()}
        grants = {k[6:]: int(v) for k, v in meta.items() if k.startswith("grant:")}
        return Account(account_id, meta["name"], meta["created"], meta.get("status", "active"), grants)

    def find(self, name_or_id: str) -> Account:
        """By id, or by (case-insensitive) name."""
        raw: Any = self.conn.hget(NAMES_KEY, name_or_id.lower())
        found = _text(raw)
        return self.get(found or name_or_id)

    def listing(self, limit: int = 100, offset: int = 0) -> list[Account]:
        ids: Any = self.conn.zrange(ALL_KEY, offset, offset + limit - 1)
        found: list[Account] = []
        for i in ids:  # one removed between the index read and its record's is left out
            with suppress(AccountNotFound):
                found.append(self.get(_text(i) or ""))
        return found

    def disable(self, account_id: str) -> Account:
        """Every key of the account stops resolving at once; its records stay for enable."""
        self.get(account_id)
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(account_key(account_id), "status", "disabled")
        for record in self._keys(account_id).values():
            pipe.hdel(KEYS_KEY, record["digest"])
        pipe.execute()
        return self.get(account_id)

    def enable(self, account_id: str) -> Account:
        self.get(account_id)
        pipe = self.conn.pipeline(transaction=True)
        pipe.hset(account_key(account_id), "status", "active")
        for kid, record in self._keys(account_id).items():
            pipe.hset(KEYS_KEY, record["digest"], _index_value(account_id, kid, list(record["scopes"])))
        pipe.execute()
        return self.get(account_id)

    def grant(self, account_id: str, **amounts: int | None) -> Account:
        """Raise (or, with 0, reset to the default) one of the account's budgets (``GRANTS``)."""
        self.get(account_id)
        unknown = set(amounts) - set(GRANTS)
        if unknown:
            raise Rejected(RejectKind.INVALID_CONFIG, f"grants: choose from {', '.join(GRANTS)}")
        for name, amount in amounts.items():
            if amount is None:
                continue
            if amount < 0:
                raise Rejected(RejectKind.INVALID_CONFIG, f"{name} must be 0 (the default) or more")
            if amount:
                self.conn.hset(account_key(account_id), f"grant:{name}", str(amount))
            else:
                self.conn.hdel(account_key(account_id), f"grant:{name}")
        return self.get(account_id)

    def delete(self, account_ids: Iterable[str]) -> None:
        """Remove accounts entirely (tests and tooling only)."""
        for account_id in account_ids:
            try:
                account = self.get(account_id)
            except AccountNotFound:
                continue
            pipe = self.conn.pipeline(transaction=True)
            for record in self._keys(account_id).values():
                pipe.hdel(KEYS_KEY, record["digest"])
            pipe.hdel(NAMES_KEY, account.name.lower())
            pipe.zrem(ALL_KEY, account_id)
            pipe.delete(account_key(account_id), keys_key(account_id), f"{account_key(account_id)}:events",
                        f"{account_key(account_id)}:games", f"{account_key(account_id)}:sent",
                        f"{account_key(account_id)}:live")
            pipe.execute()


def _index_value(account_id: str, key_id: str, scopes: Iterable[str]) -> str:
    return f"{account_id} {key_id} {','.join(sorted(scopes))}"
