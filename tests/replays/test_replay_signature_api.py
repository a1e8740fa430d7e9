"""The service signs what it publishes (issue 29): ``GET /replay`` serves a bundle signed by the
key ``GET /.well-known/hourglass-keys.json`` lists, the verify endpoint checks signed bundles
against its own keys (and still takes unsigned, older ones, with a warning), and the key set
carries no private key material."""
from __future__ import annotations

import json
from typing import Any

from core.games import GameService
from core.signing import KeySet, Signer, service_keys
from domain.canonical import canonical_json
from replays.bundle import FORMAT_2, build_bundle
from replays.source import load_game
from replays.verify import Signing, verify_bundle


def _keys(client: Any) -> KeySet:
    response = client.get("/.well-known/hourglass-keys.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert "max-age" in response.headers["Cache-Control"]
    return KeySet.from_json(response.get_json())


def test_the_key_set_is_public_and_holds_no_private_key(client: Any) -> None:
    body = client.get("/.well-known/hourglass-keys.json").get_data(as_text=True)
    signer, _ = service_keys()
    assert signer.key_id in body
    private_pem = signer.pem().decode()
    assert "PRIVATE" not in body and private_pem.splitlines()[1] not in body
    assert set(json.loads(body)["keys"][0]) == {"key_id", "alg", "public_key", "not_before", "not_after"}


def test_a_served_bundle_verifies_against_the_served_keys(client: Any, finished: str) -> None:
    data = client.get(f"/api/v1/games/{finished}/replay").get_data()
    report = verify_bundle(data, signing=Signing(_keys(client)))
    assert report.ok and report.signed_by == service_keys()[0].key_id, report.describe()
    assert client.get(f"/api/v1/games/{finished}/replay").get_data() == data  # signed once, then stored


def test_the_verify_endpoint_checks_signatures_with_the_services_keys(client: Any, service: GameService,
                                                                       finished: str) -> None:
    signed = client.get(f"/api/v1/games/{finished}/replay").get_data()
    body = client.post("/api/v1/replays/verify", data=signed, content_type="application/x-ndjson").get_json()
    assert body["ok"] and body["signed_by"] == service_keys()[0].key_id

    meta, entries = load_game(service.store, finished)
    older = build_bundle(finished, meta, entries, fmt=FORMAT_2)
    body = client.post("/api/v1/replays/verify", data=older, content_type="application/x-ndjson").get_json()
    assert body["ok"] and body["signed_by"] is None and body["warnings"] == ["the bundle is not signed"]

    stranger = build_bundle(finished, meta, entries, signer=Signer.generate(), signed_at="2026-01-01T00:00:00.000Z")
    body = client.post("/api/v1/replays/verify", data=stranger, content_type="application/x-ndjson").get_json()
    assert not body["ok"] and body["divergence"]["what"] == "signature"
    assert "not in the key set" in body["divergence"]["found"]
    assert body["divergence"]["line"] == stranger.count("\n")


def test_the_key_set_is_canonical_json(client: Any) -> None:
    body = client.get("/.well-known/hourglass-keys.json").get_data(as_text=True)
    assert body == canonical_json(json.loads(body))
