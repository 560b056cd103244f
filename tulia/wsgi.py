"""WSGI entry point (gunicorn serves `tulia.wsgi:application`)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
application = get_wsgi_application()
