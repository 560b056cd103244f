"""Pieces of bench/soak.py: the shops, the customers' traffic, faults and the accounting."""
