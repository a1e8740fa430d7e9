"""hourglass-client: typed calls for the hourglass API, and a Bot base class for bot authors.

    from hourglass_client import Client, Bot, Turn

See README.md (the bot author's tutorial).
"""
from hourglass_client.bot import Bot, Turn, sign, verify_signature
from hourglass_client.client import (
    CHALLENGE_POLICIES,
    ApiError,
    Challenge,
    Client,
    Ladder,
    LadderGame,
    LadderMember,
    LadderStanding,
    LadderSummary,
    StreamEvent,
)

__all__ = ["CHALLENGE_POLICIES", "ApiError", "Bot", "Challenge", "Client", "Ladder", "LadderGame", "LadderMember",
           "LadderStanding", "LadderSummary", "StreamEvent", "Turn", "sign", "verify_signature"]
