"""Django admin's own wording that Django's Kiswahili catalog leaves untranslated.

Named here so that makemessages carries them into the console's catalog
(tulia/console/locale), which is read before Django's own.
"""

from django.utils.translation import gettext_noop

# The app list's table headings, hidden on screen but read aloud by screen readers.
APP_LIST_HEADINGS = (
    gettext_noop("Model name"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
)
