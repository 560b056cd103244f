"""The raw columns of PaymentEvent are evidence: once written they never change.

Processing may annotate an event (outcome, note, review flags); the trigger refuses any
change to what the provider sent, and deletes except by a platform operator.
"""

from django.db import migrations

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION tulia_payment_event_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF tulia_operator() THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'payment events are append-only (DELETE refused)'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.raw_body IS DISTINCT FROM OLD.raw_body
       OR NEW.kind IS DISTINCT FROM OLD.kind
       OR NEW.reference IS DISTINCT FROM OLD.reference
       OR NEW.received_at IS DISTINCT FROM OLD.received_at
       OR NEW.source_ip IS DISTINCT FROM OLD.source_ip
       OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id THEN
        RAISE EXCEPTION 'payment event % is append-only (raw fields cannot change)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER tulia_payment_event_append_only
BEFORE UPDATE OR DELETE ON payments_paymentevent
FOR EACH ROW EXECUTE FUNCTION tulia_payment_event_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("payments", "0001_initial")]

    operations = [
        migrations.RunSQL(
            APPEND_ONLY,
            reverse_sql=(
                "DROP TRIGGER IF EXISTS tulia_payment_event_append_only ON payments_paymentevent;"
            ),
        ),
    ]
