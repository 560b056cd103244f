"""Operator mode needs a key the runtime role cannot read.

Before this, `tulia_operator()` believed any session that ran `SET tulia.operator = on`.
Now the setting must hold sha256(key | nonce), where the key sits in `tulia_private`
(owned by the migration role, no access for anyone else; tenants/rls.py stores it after
each migrate) and the nonce is the backend pid and the transaction's start time: a claim
copied from another session's query text (pg_stat_activity) or from an earlier
transaction does not verify. The check runs as its owner (SECURITY DEFINER) because the
caller may not read the key.

A plain keyed hash suffices: the nonce is chosen by the server, never by the caller, so
there is no attacker-chosen message to extend.
"""

from django.db import migrations

PRIVATE_KEY_STORE = """
CREATE SCHEMA IF NOT EXISTS tulia_private;
REVOKE ALL ON SCHEMA tulia_private FROM PUBLIC;
CREATE TABLE IF NOT EXISTS tulia_private.operator_key (
    id smallint PRIMARY KEY CHECK (id = 1),
    secret text NOT NULL
);
"""

FUNCTIONS = """
CREATE OR REPLACE FUNCTION tulia_operator_nonce() RETURNS text
LANGUAGE sql STABLE PARALLEL RESTRICTED AS
$$ SELECT pg_backend_pid()::text || ':'
       || (extract(epoch FROM transaction_timestamp()) * 1000000)::bigint::text $$;

CREATE OR REPLACE FUNCTION tulia_operator() RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    claim text := coalesce(current_setting('tulia.operator', true), '');
    key text;
BEGIN
    IF claim = '' THEN
        RETURN false;
    END IF;
    SELECT k.secret INTO key FROM tulia_private.operator_key k WHERE k.id = 1;
    IF key IS NULL THEN
        RETURN false;
    END IF;
    RETURN claim = encode(
        sha256(convert_to(key || '|' || public.tulia_operator_nonce(), 'UTF8')), 'hex'
    );
END $$;
"""

OLD_OPERATOR = """
CREATE OR REPLACE FUNCTION tulia_operator() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT coalesce(current_setting('tulia.operator', true), '') = 'on' $$;
"""


class Migration(migrations.Migration):
    dependencies = [("tenants", "0003_tenant_plan")]

    operations = [
        migrations.RunSQL(PRIVATE_KEY_STORE, reverse_sql="DROP SCHEMA tulia_private CASCADE;"),
        migrations.RunSQL(FUNCTIONS, reverse_sql=OLD_OPERATOR),
    ]
