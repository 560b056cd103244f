"""Pieces of bench/turns.py: scripts, shops, the emulated model, the driver, the report."""
