"""The Celery application; tasks are discovered in every installed app's tasks.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")

app = Celery("tulia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Connects the request-id propagation hooks for every task.
from tulia.observability import celery_signals  # noqa: E402, F401
