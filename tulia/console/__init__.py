"""The shop owner's console: the pages of Django admin a shop's staff work in."""
