#!/bin/sh
# Runs once when the PostgreSQL container initialises its data directory.
# The application must connect as a role that row-level security applies to: not a
# superuser, no BYPASSRLS. It owns its database; pgvector is installed by the superuser.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE ROLE tulia LOGIN PASSWORD '${TULIA_DB_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEROLE;
CREATE DATABASE tulia OWNER tulia;
\c tulia
CREATE EXTENSION IF NOT EXISTS vector;
-- Lets full-text search use its GIN index under FORCE ROW LEVEL SECURITY (see
-- tulia/embedded.py: _prepare_database for why this is safe).
ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
SQL
