"""gunicorn entry point for the live-server tests: the real app offering the toy game (domain/toy/)."""
import domain.games
from service.app import create_app

domain.games.show("toy")
app = create_app({"ADVANCE": "off"})
