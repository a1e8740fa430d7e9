"""One flask-smorest blueprint per resource of the v1 API."""
