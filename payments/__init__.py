"""Payments: M-Pesa Daraja (STK Push, C2B) and PesaPal card checkout.

Layout: `models` (accounts, PaymentRequest = the authoritative record, PaymentEvent =
append-only raw log), `ledger` (the one place status changes), `views` (thin callback
endpoints on per-tenant token URLs), `tasks` (Celery processing and sweeps), one folder
per provider (`mpesa/`, `pesapal/`: client, schemas, handlers, fixtures), `emulators/`
(real local HTTP servers for tests and the demo) and `tools/` (the four LLM tools).
"""
