"""Replay bundles (export, verify), time travel and the viewer's static files.

Imports point down only: replays/ uses domain/ and nothing else of ours (design.md, "Layers").
"""
