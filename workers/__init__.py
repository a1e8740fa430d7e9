"""RQ jobs: advance games (system steps, bot seats), clocks and HTTP bots."""
