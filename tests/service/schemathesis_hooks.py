"""Schemathesis hooks for tests/service/test_schemathesis.py (loaded via SCHEMATHESIS_HOOKS).

The replay bundle is JSON Lines (``application/x-ndjson``); generated request bodies for it are
bytes, sent as they are, like ``application/octet-stream``.
"""
import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "application/octet-stream")
