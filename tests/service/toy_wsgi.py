"""gunicorn entry point for the live-server tests: the real app with the toy game registered."""
import toygame

import domain.games
from service.app import create_app

domain.games._LOADERS.setdefault("toy", lambda: toygame.RULES)
app = create_app({"ADVANCE": "off"})
