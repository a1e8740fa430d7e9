"""The service's Ed25519 signing keys and the key set it publishes (docs/fairness.md).

A bundle or tournament package says which key signed it (``key_id``) and when (``signed_at``);
a verifier holding the service's key set (``GET /.well-known/hourglass-keys.json``, or a copy
saved earlier) checks that the key is in the set, that ``signed_at`` lies inside the key's
validity and that the signature matches. The signature itself is Ed25519 from ``cryptography``
(a maintained binding of OpenSSL): no curve arithmetic of ours. It is imported only where a key
is used, so the offline verifiers still run without it as long as no signature is to be checked
(docs/tournaments.md, "Verifying offline").

Keys from configuration:

- ``HOURGLASS_SIGNING_KEY``: path to the active private key, PEM (PKCS#8), e.g. from
  ``hourglass keys new``; ``HOURGLASS_SIGNING_KEYS``: path to the published key set
  (``hourglass-keys/1`` JSON). Rotation: a new key is added to the set with ``not_before`` now,
  the old one gets ``not_after`` now and stays in the set, so what it signed keeps verifying.
- Neither set: a development key is made on first use under the var directory
  (``HOURGLASS_VAR``, default ``./var``): ``signing/active.pem`` (mode 0600) and
  ``signing/keys.json``. Every process of one service must see the same key; in production set
  the variables.

A key id is the first 16 hex digits of ``sha256(raw public key)``: it names the key material
itself, so two keys can never share an id by mistake.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a key is used (see above)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEYS_FORMAT = "hourglass-keys/1"
ALG = "Ed25519"
KEY_ENV = "HOURGLASS_SIGNING_KEY"
KEYSET_ENV = "HOURGLASS_SIGNING_KEYS"
DEV_DIR = "signing"
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str], tuple[Signer, KeySet]] = {}


class KeyProblem(ValueError):
    """A key set or key file that cannot be used (bad JSON, a bad key, overlapping ids)."""


def key_id(raw: bytes) -> str:
    """The id of the Ed25519 public key whose 32 raw bytes are ``raw``."""
    return hashlib.sha256(raw).hexdigest()[:16]


def _iso(text: str | None, where: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError, AttributeError):
        raise KeyProblem(f"{where}: {text!r} is not an ISO-8601 time") from None
    if moment.tzinfo is None:
        raise KeyProblem(f"{where}: {text!r} has no time zone (write it in UTC with a Z)")
    return moment


@dataclass(frozen=True)
class PublicKey:
    """One published key: its id, the key, and when it may sign (either end open when None)."""

    key_id: str
    raw: bytes  # the 32 bytes of the Ed25519 public key
    not_before: str | None = None
    not_after: str | None = None

    def valid_at(self, moment: str) -> bool:
        at = _iso(moment, "signed_at")
        start, end = _iso(self.not_before, "not_before"), _iso(self.not_after, "not_after")
        return at is not None and (start is None or start <= at) and (end is None or at < end)

    def validity(self) -> str:
        return f"from {self.not_before or 'the beginning'} until {self.not_after or 'further notice'}"

    def to_json(self) -> dict[str, Any]:
        return {"key_id": self.key_id, "alg": ALG, "public_key": self.raw.hex(),
                "not_before": self.not_before, "not_after": self.not_after}

    @classmethod
    def from_json(cls, obj: Any, where: str = "key") -> PublicKey:
        if not isinstance(obj, Mapping):
            raise KeyProblem(f"{where}: not an object")
        if obj.get("alg", ALG) != ALG:
            raise KeyProblem(f"{where}: alg {obj.get('alg')!r}, only {ALG} is known")
        try:
            raw = bytes.fromhex(str(obj["public_key"]))
        except (KeyError, ValueError):
            raw = b""
        if len(raw) != 32:
            raise KeyProblem(f"{where}: public_key must be the 32 raw bytes of an Ed25519 key, in hex")
        if obj.get("key_id") not in (None, key_id(raw)):
            raise KeyProblem(f"{where}: key_id {obj.get('key_id')!r} is not the key's own id {key_id(raw)}")
        found = cls(key_id(raw), raw, obj.get("not_before"), obj.get("not_after"))
        _iso(found.not_before, f"{where}.not_before")
        _iso(found.not_after, f"{where}.not_after")
        return found


@dataclass(frozen=True)
class KeySet:
    """The keys a verifier trusts, by id."""

    keys: tuple[PublicKey, ...]

    def get(self, kid: str) -> PublicKey | None:
        return next((k for k in self.keys if k.key_id == kid), None)

    def to_json(self) -> dict[str, Any]:
        return {"format": KEYS_FORMAT, "keys": [k.to_json() for k in self.keys]}

    @classmethod
    def from_json(cls, obj: Any) -> KeySet:
        if not isinstance(obj, Mapping) or obj.get("format") != KEYS_FORMAT or not isinstance(obj.get("keys"), list):
            raise KeyProblem(f"a key set is an object with format {KEYS_FORMAT!r} and a list 'keys'")
        keys = tuple(PublicKey.from_json(k, f"keys[{i}]") for i, k in enumerate(obj["keys"]))
        if len({k.key_id for k in keys}) != len(keys):
            raise KeyProblem("a key appears twice in the key set")
        return cls(keys)

    @classmethod
    def load(cls, path: Path) -> KeySet:
        try:
            return cls.from_json(json.loads(path.read_text("utf-8")))
        except ValueError as exc:  # JSONDecodeError and KeyProblem
            raise KeyProblem(f"{path}: {exc}") from None

    @classmethod
    def single(cls, public_hex: str) -> KeySet:
        """A set of one key given as hex (``--key``), valid at every time."""
        return cls((PublicKey.from_json({"public_key": public_hex}, "--key"),))


def can_check() -> None:
    """Raise KeyProblem unless ``cryptography`` is installed (an auditor's verifier may lack it)."""
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise KeyProblem("checking a signature needs the 'cryptography' package (pip install cryptography)") from None


class SignatureProblem(ValueError):
    """Why a signature does not verify: an unknown key, a key outside its validity, a mismatch."""


def check(keys: KeySet, signature: Mapping[str, Any], message: bytes) -> PublicKey:
    """The key that made ``signature`` (``{alg, key_id, signed_at, value}``) over ``message``;
    raises SignatureProblem saying which check failed."""
    if signature.get("alg") != ALG:
        raise SignatureProblem(f"alg {signature.get('alg')!r} is not {ALG}")
    kid = str(signature.get("key_id"))
    key = keys.get(kid)
    if key is None:
        known = ", ".join(k.key_id for k in keys.keys) or "none"
        raise SignatureProblem(f"signed by key {kid}, which is not in the key set (known: {known})")
    signed_at = signature.get("signed_at")
    try:
        inside = isinstance(signed_at, str) and key.valid_at(signed_at)
    except KeyProblem:
        inside = False
    if not inside:
        raise SignatureProblem(f"signed at {signed_at!r} by key {kid}, which is valid {key.validity()}")
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(key.raw).verify(bytes.fromhex(str(signature.get("value"))), message)
    except (InvalidSignature, ValueError):
        raise SignatureProblem(f"the signature does not match the signed bytes (key {kid})") from None
    return key


@dataclass(frozen=True)
class Signer:
    """The active private key: signs ``message`` with its id and the time of signing."""

    private: Ed25519PrivateKey

    @property
    def raw_public(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def key_id(self) -> str:
        return key_id(self.raw_public)

    def public(self, not_before: str | None = None, not_after: str | None = None) -> PublicKey:
        return PublicKey(self.key_id, self.raw_public, not_before, not_after)

    def stamp(self, signed_at: str) -> dict[str, Any]:
        """The signature object before it is signed (its ``value`` left out)."""
        return {"alg": ALG, "key_id": self.key_id, "signed_at": signed_at}

    def sign(self, message: bytes) -> str:
        return self.private.sign(message).hex()

    def pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())

    @classmethod
    def generate(cls) -> Signer:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, data: bytes, where: str = "key") -> Signer:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise KeyProblem(f"{where}: not a PEM private key ({exc})") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise KeyProblem(f"{where}: not an Ed25519 key")
        return cls(private)


def rotate(keys: KeySet, new: Signer, now: str) -> KeySet:
    """The key set after ``new`` takes over at ``now``: every key still open ends at ``now``."""
    closed = tuple(k if k.not_after is not None else PublicKey(k.key_id, k.raw, k.not_before, now) for k in keys.keys)
    return KeySet((*closed, new.public(not_before=now)))


def write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _dev_keys(directory: Path) -> tuple[Signer, KeySet]:
    """The development key under ``directory``, made on first use, valid at every time (a test's
    clock may be anywhere)."""
    pem, keyset = directory / "active.pem", directory / "keys.json"
    if not pem.exists():
        signer = Signer.generate()
        try:
            write_private(pem, signer.pem())
            keyset.write_text(json.dumps(KeySet((signer.public(),)).to_json(), indent=1) + "\n", "utf-8")
        except FileExistsError:  # another process made it first: use theirs
            pass
    return Signer.from_pem(pem.read_bytes(), str(pem)), KeySet.load(keyset)


def load(environ: Mapping[str, str], var: Path) -> tuple[Signer, KeySet]:
    """The active signer and the published key set, as configured (see the module docstring).

    Raises KeyProblem when the configured key is not in the configured set."""
    key_path, set_path = environ.get(KEY_ENV, "").strip(), environ.get(KEYSET_ENV, "").strip()
    if not key_path:
        signer, keys = _dev_keys(var / DEV_DIR)
    else:
        signer = Signer.from_pem(Path(key_path).read_bytes(), key_path)
        keys = KeySet.load(Path(set_path)) if set_path else KeySet((signer.public(),))
    if keys.get(signer.key_id) is None:
        raise KeyProblem(f"the signing key {signer.key_id} is not in the published key set {set_path}: "
                         "add it (hourglass keys new) or bundles would not verify")
    return signer, keys


def service_keys() -> tuple[Signer, KeySet]:
    """:func:`load` from this process's environment and var directory, read once per process
    and configuration (a rotation takes effect when the processes restart)."""
    from core.connection import var_dir

    cache = (os.environ.get(KEY_ENV, ""), os.environ.get(KEYSET_ENV, ""), str(var_dir()))
    with _LOCK:
        found = _LOADED.get(cache)
        if found is None:
            found = _LOADED[cache] = load(os.environ, var_dir())
        return found
