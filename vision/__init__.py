"""Seeing the table: frame sources, card detection, table geometry, trick tracking, synthesis."""
