"""Catalog full-text index without a GIN pending list.

With fastupdate on, new rows' lexemes wait in an unsorted pending list that every
search scans in full until a vacuum merges it: after a bulk load of 1M items (bench)
that list held ~280 pages and made an exact-word search take ~19 ms instead of
~0.2 ms. Imports are off the request path, so they pay for the index update instead.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("commerce", "0003_item_in_stock"),
    ]

    operations = [
        migrations.RunSQL(
            # Turning fastupdate off does not flush the entries already pending.
            sql=[
                "ALTER INDEX item_fulltext SET (fastupdate = off)",
                "SELECT gin_clean_pending_list('item_fulltext'::regclass)",
            ],
            reverse_sql=["ALTER INDEX item_fulltext RESET (fastupdate)"],
        ),
    ]
