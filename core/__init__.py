"""The application core: the event store, the game service (create, load, apply), seats and clocks.

Every writer goes through :class:`core.games.GameService` and the store's one Lua append:
the HTTP routes (``service/``), the RQ jobs (``workers/``), replay export (``replays/``) and
the CLI. The core imports only ``domain/``, redis and the standard library: no Flask, no RQ.
What happens after a change (enqueueing a worker job) is a callback the composition roots
pass in (``GameService(conn, advance=...)``).
"""
