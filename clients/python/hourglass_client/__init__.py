"""hourglass-client: typed calls for the hourglass API, and a Bot base class for bot authors.

    from hourglass_client import Client, Bot, Turn

See README.md (the bot author's tutorial).
"""
from hourglass_client.bot import Bot, Turn, sign, verify_signature
from hourglass_client.client import ApiError, Client, StreamEvent

__all__ = ["ApiError", "Bot", "Client", "StreamEvent", "Turn", "sign", "verify_signature"]
