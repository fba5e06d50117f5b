"""Doppelkopf rules engine: cards, contracts, tricks, announcements, scoring, the score sheet.

Pure Python, no third-party dependencies.
"""
