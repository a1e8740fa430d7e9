"""An S3-compatible bucket server for the archive tests: moto's server mode on 127.0.0.1, a real
HTTP endpoint that boto3 talks to as it would to MinIO or a cloud bucket; and boto3's settings as an
operator gives them, with no profile or file of this machine."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hardening.conftest import free_port


def serve_bucket() -> Iterator[str]:
    """Start moto's server on a free port, yield its endpoint URL, stop it (a module fixture's body)."""
    moto_server = pytest.importorskip("moto.server")  # without moto, the bucket's tests skip
    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def set_aws_env(monkeypatch: pytest.MonkeyPatch, key_id: str, secret: str) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # an unreachable bucket fails at once
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
