"""Django settings for Tulia, read from the environment.

With no DATABASE_URL / REDIS_URL the embedded servers of `tulia.embedded` are started
(profile `test` under pytest, `dev` otherwise). Every value is validated here so a bad
environment fails at start-up, loudly and by name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import dj_database_url

from journeys.llm.settings import LLMSettings
from tulia import embedded
from tulia.env import (
    ImproperEnvironment,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
)
from tulia.observability.logs import configure_structlog, logging_config, silence_noisy_libraries
from tulia.secrets_store import dev_secret

BASE_DIR = Path(__file__).resolve().parent.parent

TULIA_PROFILE = env_choice(
    "TULIA_PROFILE",
    ("dev", "test", "bench", "production"),
    "test" if "pytest" in sys.modules else "dev",
)
IS_PRODUCTION = TULIA_PROFILE == "production"
_LOCAL_DIR = None if IS_PRODUCTION else embedded.data_dir(TULIA_PROFILE)

DEBUG = env_bool("DJANGO_DEBUG", default=TULIA_PROFILE == "dev")


def _required_in_production(name: str, dev_default: str) -> str:
    value = env_str(name)
    if value:
        return value
    if IS_PRODUCTION:
        raise ImproperEnvironment(f"{name} must be set when TULIA_PROFILE=production")
    return dev_default


SECRET_KEY = _required_in_production(
    "DJANGO_SECRET_KEY", dev_secret(_LOCAL_DIR, "django") if _LOCAL_DIR else ""
)
# Comma-separated Fernet keys; the first encrypts, all decrypt (rotation).
TULIA_FIELD_KEYS = _required_in_production(
    "TULIA_FIELD_KEYS", dev_secret(_LOCAL_DIR, "field-key", fernet=True) if _LOCAL_DIR else ""
).split(",")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# The public base URL Twilio and the payment providers call; signatures are computed
# over it, so it is configured rather than guessed from proxy headers.
PUBLIC_BASE_URL = (env_str("TULIA_PUBLIC_BASE_URL", "http://localhost:8000") or "").rstrip("/")
if not PUBLIC_BASE_URL.startswith(("http://", "https://")):
    raise ImproperEnvironment("TULIA_PUBLIC_BASE_URL must start with http:// or https://")

# --- LLM (journeys/llm/settings.py reads the env; checked here so a bad mode or plan map
# stops start-up rather than the first turn that needs a model) -----------------------
try:
    _llm = LLMSettings.from_env()
except ValueError as exc:
    raise ImproperEnvironment(str(exc)) from exc
TULIA_LLM_MODE = _llm.effective_mode
TULIA_LLM_MODELS = dict(_llm.models)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "tenants.apps.TenantsConfig",
    "tulia.conversations.apps.ConversationsConfig",
    "tulia.whatsapp.apps.WhatsappConfig",
    "tulia.commerce.apps.CommerceConfig",
    "tools.apps.ToolsConfig",
    "payments.apps.PaymentsConfig",
    "kb.apps.KbConfig",
    "journeys.apps.JourneysConfig",
    "tulia.metering.apps.MeteringConfig",
    "tulia.handoff.apps.HandoffConfig",
    "tulia.returns.apps.ReturnsConfig",
    "tulia.storefront.apps.StorefrontConfig",
]

MIDDLEWARE = [
    "tulia.observability.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tenants.middleware.StaffTenantMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "tulia.urls"
WSGI_APPLICATION = "tulia.wsgi.application"
ASGI_APPLICATION = "tulia.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "tulia" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# --- Data stores ---------------------------------------------------------------------
def _store_url(name: str, start_embedded: Callable[[str], str]) -> str:
    value = env_str(name)
    if value:
        return value
    if IS_PRODUCTION:
        raise ImproperEnvironment(f"{name} must be set when TULIA_PROFILE=production")
    return start_embedded(TULIA_PROFILE)


DATABASE_URL = _store_url("DATABASE_URL", embedded.ensure_postgres)
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    )
}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"]["TEST"] = {"NAME": env_str("TULIA_TEST_DB", "test_tulia")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = _store_url("REDIS_URL", embedded.ensure_redis)
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperEnvironment("REDIS_URL must start with redis://, rediss:// or unix://")

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": f"tulia:{TULIA_PROFILE}",
    }
}

# --- Celery --------------------------------------------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or (
    "redis+socket://" + REDIS_URL.removeprefix("unix://")
    if REDIS_URL.startswith("unix://")
    else REDIS_URL
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the task to be redelivered
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600)}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "Africa/Nairobi"

# --- Auth, i18n, static --------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en"
TIME_ZONE = "Africa/Nairobi"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing root
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if IS_PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
MEDIA_ROOT = Path(env_str("TULIA_MEDIA_ROOT") or BASE_DIR / "var" / TULIA_PROFILE / "media")

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "EXCEPTION_HANDLER": "tulia.api.errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tulia tenant API",
    "VERSION": "1.0.0",
    # Several resources have a "status"; name each enum after its resource.
    "ENUM_NAME_OVERRIDES": {
        "OrderStatusEnum": "tulia.commerce.models.orders.OrderStatus",
        "TicketStatusEnum": "tulia.handoff.models.TicketStatus",
        "DocumentStatusEnum": "kb.models.Document.Status",
        "ConversationStatusEnum": "tulia.conversations.models.Conversation.Status",
    },
}

# --- Security for production ---------------------------------------------------------
if IS_PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = logging_config(
    env_str("TULIA_LOG_LEVEL", "INFO") or "INFO",
    json=env_bool("TULIA_LOG_JSON", default=TULIA_PROFILE != "dev"),
)
configure_structlog()
silence_noisy_libraries()
TULIA_METRICS_TOKEN = env_str("TULIA_METRICS_TOKEN", "")

# --- Product knobs -------------------------------------------------------------------
# What answers a conversation turn: the LangGraph engine (tulia.conversations.turns).
TULIA_TURN_HANDLER = env_str("TULIA_TURN_HANDLER", "journeys.handler.handle_turn")
TULIA_RATE_CUSTOMER_PER_MINUTE = env_int("TULIA_RATE_CUSTOMER_PER_MINUTE", 20, minimum=1)
TULIA_RATE_TENANT_PER_MINUTE = env_int("TULIA_RATE_TENANT_PER_MINUTE", 6000, minimum=1)
TULIA_READYZ_TIMEOUT_SECONDS = env_float("TULIA_READYZ_TIMEOUT_SECONDS", 2.0, minimum=0.1)
