"""Deterministic natural-language understanding for English, Swahili and Sheng."""
