"""Encryption at rest for the few secrets the service must be able to read back.

A push bot's HMAC secret signs every request the worker sends it, so the service needs the
secret itself, not a hash of it: it is stored encrypted with Fernet (``cryptography``: AES-128-CBC
and an HMAC-SHA256 tag, so a flipped byte in Redis is a refusal, never a wrong key). Bearer tokens
are never stored at all, only their sha256.

The key: ``HOURGLASS_SECRET_KEY`` (one or more urlsafe-base64 Fernet keys, comma-separated; the
first encrypts, all decrypt, so keys can be rotated), else a key file ``secret.key`` under the
var directory (``HOURGLASS_VAR``, default ``./var``), created with mode 0600 on first use so
``make run`` needs no set-up. Every process that reads secrets (web and workers) must see the same
key; in production set the variable.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from core.connection import var_dir

if TYPE_CHECKING:  # cryptography (its compiled bindings) loads with the first secret, not with the app
    from cryptography.fernet import MultiFernet

KEY_ENV = "HOURGLASS_SECRET_KEY"
KEY_FILE = "secret.key"
_LOCK = threading.Lock()
_BOXES: dict[str, MultiFernet] = {}


class SecretUnreadable(ValueError):
    """A stored secret that the configured keys cannot decrypt (wrong key, or tampered)."""


def _key_file() -> Path:
    path = var_dir() / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        from cryptography.fernet import Fernet

        with os.fdopen(fd, "wb") as out:
            out.write(Fernet.generate_key())
    return path


def _keys() -> str:
    configured = os.environ.get(KEY_ENV, "").strip()
    if configured:
        return configured
    with _LOCK:
        try:
            return _key_file().read_text("ascii").strip()
        except FileExistsError:  # another process created it between exists() and open()
            return (var_dir() / KEY_FILE).read_text("ascii").strip()


def box() -> MultiFernet:
    from cryptography.fernet import Fernet, MultiFernet

    keys = _keys()
    found = _BOXES.get(keys)
    if found is None:
        found = _BOXES[keys] = MultiFernet([Fernet(k.strip().encode("ascii")) for k in keys.split(",") if k.strip()])
    return found


def seal(plaintext: str) -> str:
    return box().encrypt(plaintext.encode("utf-8")).decode("ascii")


def unseal(sealed: str) -> str:
    from cryptography.fernet import InvalidToken

    try:
        return box().decrypt(sealed.encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise SecretUnreadable(f"a stored secret cannot be decrypted with the keys in {KEY_ENV}") from None
