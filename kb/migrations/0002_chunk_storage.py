"""Keep each chunk's embedding and search vector in the heap row, not in TOAST.

Retrieval scans a tenant's embeddings and search vectors on every question; fetched from
TOAST each one costs extra page reads. The body text, read only for the final hits, is
left to be moved out of line instead.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("kb", "0001_initial")]

    operations = [
        migrations.RunSQL(
            sql=[
                "ALTER TABLE kb_chunk ALTER COLUMN embedding SET STORAGE PLAIN",
                "ALTER TABLE kb_chunk ALTER COLUMN search_vector SET STORAGE MAIN",
                # Rows up to ~4 kB stay whole; the body text is moved out first.
                "ALTER TABLE kb_chunk SET (toast_tuple_target = 4080)",
            ],
            reverse_sql=[
                "ALTER TABLE kb_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL",
                "ALTER TABLE kb_chunk ALTER COLUMN search_vector SET STORAGE EXTENDED",
                "ALTER TABLE kb_chunk RESET (toast_tuple_target)",
            ],
        ),
    ]
