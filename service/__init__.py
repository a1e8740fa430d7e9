"""The HTTP layer: the Flask app (flask-smorest + marshmallow), problem+json errors, SSE, OpenAPI.

Routes translate: schema -> command -> ``core.games.GameService`` -> view -> schema. The event
store and the game service live in ``core/`` (no Flask, no RQ). ``service.app`` (the app
factory) and ``service.cli`` (the console script) are the composition roots: the only modules
below ``workers/`` that may import it, to wire the worker's enqueue callback into the core.
"""
