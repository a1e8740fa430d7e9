"""The hourglass service: the Redis Streams event store, the game service and the HTTP API.

Modules without Flask, safe to import from workers and scripts: ``service.connection``,
``service.store`` and ``service.games``. The Flask app lives in ``service.app``.
"""
