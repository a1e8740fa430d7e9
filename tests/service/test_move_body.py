"""POST .../moves parses its body off flask-smorest's generic path (``service.routes.moves.move_body``);
these tests hold it to the documented ``MoveBodySchema`` as the generic path applies it: the same
move for a body the schema accepts, the same 400 problem for one it refuses (issue 27).

The reference is a route decorated the generic way (``@blp.arguments(MoveBodySchema)``) in an app
with the same error handlers. Nothing here measures time.
"""
from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask_smorest import Api, Blueprint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.problems import register_error_handlers
from service.schemas import MoveBodySchema

JSON = "application/json"


class _Api(Api):  # type: ignore[misc]
    def _register_error_handlers(self) -> None:
        register_error_handlers(self._app)


def _reference() -> Any:
    """The generic path: webargs parses the body with the schema, or answers its 400."""
    ref = Flask("reference")
    ref.config.update({"API_TITLE": "ref", "API_VERSION": "1", "OPENAPI_VERSION": "3.1.0"})
    api = _Api(ref)
    blp = Blueprint("ref", __name__)

    @blp.route("/moves", methods=["POST"])
    @blp.arguments(MoveBodySchema, error_status_code=400)
    def moves(move: dict[str, Any]) -> Any:
        return {"parsed": move}

    api.register_blueprint(blp)
    return ref.test_client()


REFERENCE = _reference()


def _answers(client: Any, raw: bytes, content_type: str | None, path: str) -> tuple[int, Any]:
    headers = {"Content-Type": content_type} if content_type else {}
    response = client.post(path, data=raw, headers=headers)
    return response.status_code, response.get_json(force=True, silent=True)


def _same(client: Any, raw: bytes, content_type: str | None = JSON) -> None:
    path = "/api/v1/games/no-such-game/moves"
    status, body = _answers(client, raw, content_type, path)
    ref_status, ref_body = _answers(REFERENCE, raw, content_type, "/moves")
    if ref_status == 200:  # accepted: the route got past the body to the game, which does not exist
        assert (status, body["kind"]) == (404, "NOT_FOUND"), (raw, body)
        from service.routes.moves import move_body

        with client.application.test_request_context(data=raw, headers={"Content-Type": content_type or ""}):
            assert move_body() == ref_body["parsed"]
    else:
        assert (status, body) == (ref_status, ref_body), raw


BODIES = [b"", b"null", b"[]", b'"Pass"', b"3", b"{}", b'{"type": null}', b'{"type": 5}', b'{"type": ""}',
          b'{"type": "' + b"x" * 64 + b'"}', b'{"type": "' + b"x" * 65 + b'"}', b'{"type": ["Pass"]}',
          b'{"type": "Pass"}', b'{"type": "Pass", "extra": {"a": [1, 2]}}', b'{"type": "\\u00e9t\\u00e9"}',
          b"not json", b"\xff\xfe", b'{"type": "Pass"', b'{"type": "Pass"} trailing', b"NaN",
          b'{"type": "Pass", "type": 3}', b'{"type": 3, "type": "Pass"}', b'{"type": true}']


@pytest.mark.parametrize("raw", BODIES)
def test_a_body_is_taken_or_refused_as_the_schema_does(client: Any, raw: bytes) -> None:
    _same(client, raw)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/merge-patch+json",
                                          "application/json; charset=utf-8", "application/jsonx"])
def test_the_content_type_counts_as_the_generic_parser_counts_it(client: Any, content_type: str | None) -> None:
    _same(client, b'{"type": "Pass"}', content_type)
    _same(client, b"[]", content_type)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=70),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                        max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # no state: limits off
@given(st.one_of(JSON_VALUES, st.dictionaries(st.sampled_from(["type", "seat", "place"]), JSON_VALUES, max_size=3)))
def test_any_json_body_gets_the_answer_of_the_schema(app: Any, value: Any) -> None:
    _same(app.test_client(), json.dumps(value).encode())
