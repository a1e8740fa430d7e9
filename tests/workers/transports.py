"""The two ways a push call is made, for tests that hold both to the same protocol: a job's
thread that waits (``workers.httpbot``) and the caller process's asyncio client
(``workers.asyncbot``)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from workers import asyncbot, httpbot

AskBot = Callable[[str, str, bytes, float, Callable[[dict[str, Any]], bool]], httpbot.BotCall]


async def _ask_async(url: str, secret: str, body: bytes, timeout_s: float,
                     is_legal: Callable[[dict[str, Any]], bool]) -> httpbot.BotCall:
    async with asyncbot.client() as http:
        return await asyncbot.ask_bot(http, url, secret, body, timeout_s, is_legal)


def ask_async(url: str, secret: str, body: bytes, timeout_s: float,
              is_legal: Callable[[dict[str, Any]], bool]) -> httpbot.BotCall:
    return asyncio.run(_ask_async(url, secret, body, timeout_s, is_legal))


@pytest.fixture(params=["thread", "asyncio"])
def ask_bot(request: pytest.FixtureRequest) -> AskBot:
    """``ask_bot(url, secret, body, timeout_s, is_legal)`` with either transport."""
    return httpbot.ask_bot if request.param == "thread" else ask_async
