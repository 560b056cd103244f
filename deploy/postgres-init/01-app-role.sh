#!/bin/sh
# Runs once when the PostgreSQL container initialises its data directory.
# Two roles, neither a superuser nor BYPASSRLS (tulia/db_roles.py):
# - tulia_owner owns the database, its tables and the RLS functions; only `migrate` uses it;
# - tulia is what web and workers connect as; migrate grants it row privileges only, so
#   it cannot ALTER a table, drop a policy or replace a policy function.
# pgvector is installed by the superuser.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE ROLE tulia_owner LOGIN PASSWORD '${TULIA_DB_OWNER_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEROLE;
CREATE ROLE tulia LOGIN PASSWORD '${TULIA_DB_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB;
CREATE DATABASE tulia OWNER tulia_owner;
\c tulia
CREATE EXTENSION IF NOT EXISTS vector;
-- Lets full-text search use its GIN index under FORCE ROW LEVEL SECURITY (see
-- tulia/embedded.py: _prepare_database for why this is safe).
ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
SQL
