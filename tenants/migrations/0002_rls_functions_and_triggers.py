"""SQL the ORM cannot express: RLS helper functions and the integrity triggers.

- tulia_current_tenant(): the transaction-local tenant (NULL when unset, so nothing matches).
- tulia_operator(): true only inside tenants.context.operator_context.
- tulia_current_staff_user(): the signed-in staff user, for reading one's own membership.
- Sender routing: WhatsAppSender rows keep the global number → tenant table in step.
- Consent audit: rows can be added, never changed; deleted only by an operator.
"""

from django.db import migrations

FUNCTIONS = """
CREATE OR REPLACE FUNCTION tulia_current_tenant() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT NULLIF(current_setting('tulia.tenant_id', true), '')::uuid $$;

CREATE OR REPLACE FUNCTION tulia_operator() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT coalesce(current_setting('tulia.operator', true), '') = 'on' $$;

CREATE OR REPLACE FUNCTION tulia_current_staff_user() RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS
$$ SELECT NULLIF(current_setting('tulia.user_id', true), '')::integer $$;
"""

SENDER_ROUTE_TRIGGER = """
CREATE OR REPLACE FUNCTION tulia_sync_sender_route() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM tenants_senderroute WHERE sender_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO tenants_senderroute (phone_e164, tenant_id, sender_id)
        VALUES (NEW.phone_e164, NEW.tenant_id, NEW.id);
        RETURN NEW;
    END IF;
    RETURN OLD;
END $$;

CREATE TRIGGER tulia_sender_route
AFTER INSERT OR UPDATE OF phone_e164, tenant_id OR DELETE ON tenants_whatsappsender
FOR EACH ROW EXECUTE FUNCTION tulia_sync_sender_route();
"""

CONSENT_APPEND_ONLY = """
CREATE OR REPLACE FUNCTION tulia_consent_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND tulia_operator() THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'consent events are append-only (% refused)', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER tulia_consent_append_only
BEFORE UPDATE OR DELETE ON tenants_consentevent
FOR EACH ROW EXECUTE FUNCTION tulia_consent_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("tenants", "0001_initial")]

    operations = [
        migrations.RunSQL(FUNCTIONS, reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(
            SENDER_ROUTE_TRIGGER,
            reverse_sql="DROP TRIGGER IF EXISTS tulia_sender_route ON tenants_whatsappsender;",
        ),
        migrations.RunSQL(
            CONSENT_APPEND_ONLY,
            reverse_sql="DROP TRIGGER IF EXISTS tulia_consent_append_only ON tenants_consentevent;",
        ),
    ]
