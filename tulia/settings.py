"""Django settings for Tulia, read from the environment.

With no DATABASE_URL / REDIS_URL the URLs of the embedded servers of `tulia.embedded`
are used (profile `test` under pytest, `dev` otherwise); importing the settings never
starts them (the launcher, `manage.py` and the test settings do). Every value is
validated here so a bad environment fails at start-up, loudly and by name.
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
# Proves operator mode to PostgreSQL (tenants/context.py: operator_context); the database
# keeps a copy the runtime role cannot read, so SQL alone cannot switch RLS off.
TULIA_OPERATOR_KEY = _required_in_production(
    "TULIA_OPERATOR_KEY", dev_secret(_LOCAL_DIR, "operator-key") if _LOCAL_DIR else ""
)
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

# Hosts that server-side fetches of shop-typed URLs (item photos) may reach although they
# are not public internet addresses: the local test servers in dev/test, never in
# production (tulia/netguard.py).
# Store connections (tulia/catalog_sync) use the same list for their emulators. Production
# refuses it outright: an operator's typo must not open the internal network to shops.
TULIA_LOCAL_FETCH_HOSTS = env_list(
    "TULIA_LOCAL_FETCH_HOSTS", [] if IS_PRODUCTION else ["127.0.0.1", "localhost"]
)
if IS_PRODUCTION and TULIA_LOCAL_FETCH_HOSTS:
    raise ImproperEnvironment("TULIA_LOCAL_FETCH_HOSTS must be empty when TULIA_PROFILE=production")

# --- Payments: where provider requests may go (payments/hosts.py) -----------------------
# Hosts (or host:port) allowed as M-Pesa/PesaPal base URLs besides the providers'
# documented ones. A platform operator's choice, never a shop's: in dev and test the
# local emulators; empty in production unless the operator lists something.
TULIA_PROVIDER_HOST_ALLOWLIST = env_list(
    "TULIA_PROVIDER_HOST_ALLOWLIST", [] if IS_PRODUCTION else ["127.0.0.1", "localhost"]
)

# --- LLM (journeys/llm/settings.py reads the env; checked here so a bad mode or plan map
# stops start-up rather than the first turn that needs a model) -----------------------
try:
    _llm = LLMSettings.from_env()
except ValueError as exc:
    raise ImproperEnvironment(str(exc)) from exc
TULIA_LLM_MODE = _llm.effective_mode
TULIA_LLM_MODELS = dict(_llm.models)

INSTALLED_APPS = [
    "tulia.console.apps.ShopAdminConfig",  # Django's admin, with the shop console's site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our own static files, not a CDN
    "axes",
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
    "tulia.catalog_sync.apps.CatalogSyncConfig",
    "tulia.console.apps.ConsoleConfig",
    "tulia.campaigns.apps.CampaignsConfig",
]

MIDDLEWARE = [
    "tulia.observability.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "tulia.json_depth.JsonDepthMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tenants.middleware.StaffTenantMiddleware",
    "tulia.console.language.StaffLanguageMiddleware",  # the admin in each staff's language
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out sign-in with 429
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
def _store_url(name: str, embedded_url: Callable[[str], str]) -> str:
    value = env_str(name)
    if value:
        return value
    if IS_PRODUCTION:
        raise ImproperEnvironment(f"{name} must be set when TULIA_PROFILE=production")
    return embedded_url(TULIA_PROFILE)


DATABASE_URL = _store_url("DATABASE_URL", embedded.postgres_url)
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    )
}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The role that owns the tables and RLS functions and runs `migrate` (tulia/db_roles.py).
# Only the migrate job needs it; the web and worker processes run as DATABASE_URL's role.
_owner_url = env_str("DATABASE_OWNER_URL") or (
    "" if env_str("DATABASE_URL") else embedded.owner_url(DATABASE_URL)
)
DATABASE_OWNER = dj_database_url.parse(_owner_url) if _owner_url else None
DATABASE_RUNTIME_ROLE = DATABASES["default"]["USER"]
DATABASES["default"]["TEST"] = {"NAME": env_str("TULIA_TEST_DB", "test_tulia")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = _store_url("REDIS_URL", embedded.redis_url)
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
# The worker looks for a lost broker every second (tulia.celery.QuickReconnectConsumer)
# and never gives up: an outage longer than 100 tries must not end the worker.
CELERY_WORKER_CONSUMER = "tulia.celery:QuickReconnectConsumer"
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
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
# The admin's languages; each staff member picks one (tulia.console.language).
LANGUAGES = [("en", "English"), ("sw", "Kiswahili")]
LOCALE_PATHS = [BASE_DIR / "tulia" / "console" / "locale"]
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
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "OrderStatusEnum": "tulia.commerce.models.orders.OrderStatus",
        "TicketStatusEnum": "tulia.handoff.models.TicketStatus",
        "DocumentStatusEnum": "kb.models.Document.Status",
        "ConversationStatusEnum": "tulia.conversations.models.Conversation.Status",
    },
}

# --- Sign-in throttling (django-axes) ---------------------------------------------------
# Admin sign-in and the desk API's HTTP Basic both go through authenticate(), which the
# axes backend guards: after AXES_FAILURE_LIMIT wrong passwords for one username from
# one address, that pair is refused for AXES_COOLOFF_TIME hours. Keyed on the pair so an
# attacker cannot lock a shop's owner out from elsewhere, nor a whole shared (NAT) address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("TULIA_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = env_float("TULIA_LOGIN_COOLOFF_HOURS", 0.25, minimum=0.01)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_HTTP_RESPONSE_CODE = 429
AXES_RESET_ON_SUCCESS = True
# Axes' own admin pages carry actions outside tenants/roles.py; operators unlock with
# `manage.py axes_reset_username <name>` instead.
AXES_ENABLE_ADMIN = False
# Test clients sign in with client.login(), which passes no request for axes to key on;
# tests/security/test_login_throttling.py switches it on.
AXES_ENABLED = env_bool("TULIA_LOGIN_THROTTLING", default=TULIA_PROFILE != "test")

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
# /metrics names tenants and queue sizes: in production it always asks for this token.
TULIA_METRICS_TOKEN = _required_in_production("TULIA_METRICS_TOKEN", "")

# --- Product knobs -------------------------------------------------------------------
# What answers a conversation turn: the LangGraph engine (tulia.conversations.turns).
TULIA_TURN_HANDLER = env_str("TULIA_TURN_HANDLER", "journeys.handler.handle_turn")
# A turn's lease on its thread, renewed by a heartbeat while the turn runs: how long a
# killed worker can hold a thread before the sweeper hands it to another worker.
TULIA_TURN_LOCK_LEASE = env_float("TULIA_TURN_LOCK_LEASE", 8.0, minimum=0.1)
# A thread's turn is scheduled this long after its latest message, so a burst of quick
# messages is answered as one turn (no worker sleeps meanwhile). On by default; the test
# profile answers each message as it comes unless a test asks for the burst behaviour.
TULIA_TURN_DEBOUNCE_SECONDS = env_float(
    "TULIA_TURN_DEBOUNCE_SECONDS", 0.0 if TULIA_PROFILE == "test" else 2.0, minimum=0.0
)
# The sweeper runs this often and re-enqueues messages left waiting this long.
TULIA_SWEEP_EVERY_SECONDS = env_float("TULIA_SWEEP_EVERY_SECONDS", 2.0, minimum=0.5)
TULIA_SWEEP_AGE_SECONDS = env_float("TULIA_SWEEP_AGE_SECONDS", 5.0, minimum=0.001)
TULIA_RATE_CUSTOMER_PER_MINUTE = env_int("TULIA_RATE_CUSTOMER_PER_MINUTE", 20, minimum=1)
TULIA_RATE_TENANT_PER_MINUTE = env_int("TULIA_RATE_TENANT_PER_MINUTE", 6000, minimum=1)
TULIA_READYZ_TIMEOUT_SECONDS = env_float("TULIA_READYZ_TIMEOUT_SECONDS", 2.0, minimum=0.1)
# Every Redis call gives up after this long (tulia.redis_client), so a stalled Redis
# slows a request by seconds instead of hanging it.
TULIA_REDIS_TIMEOUT_SECONDS = env_float("TULIA_REDIS_TIMEOUT_SECONDS", 2.0, minimum=0.1)
# Messages stored but not turned after this long are picked up by the sweeper.
TULIA_SWEEP_AGE_SECONDS = env_float("TULIA_SWEEP_AGE_SECONDS", 5.0, minimum=0.0)
# How long a webhook remembers which tenant a WhatsApp number belongs to; tests see
# every change at once.
TULIA_SENDER_CACHE_SECONDS = env_float(
    "TULIA_SENDER_CACHE_SECONDS", 0.0 if TULIA_PROFILE == "test" else 5.0, minimum=0.0
)
# Outbound WhatsApp: a backend class by dotted path, or (unset) Twilio's REST API when an
# API base is given (the emulator's, in tests) or in production, the console otherwise.
TULIA_WHATSAPP_BACKEND = env_str("TULIA_WHATSAPP_BACKEND")
TULIA_TWILIO_API_BASE = (env_str("TULIA_TWILIO_API_BASE") or "").rstrip("/") or None
if TULIA_TWILIO_API_BASE and not TULIA_TWILIO_API_BASE.startswith(("http://", "https://")):
    raise ImproperEnvironment("TULIA_TWILIO_API_BASE must start with http:// or https://")
# Catalog embeddings: OpenAI's when a key is set (unless "offline"), else the offline one.
_embedder = env_choice("TULIA_EMBEDDER", ("auto", "offline", "openai"), "auto")
if _embedder == "openai" and not env_str("OPENAI_API_KEY"):
    raise ImproperEnvironment("TULIA_EMBEDDER=openai needs OPENAI_API_KEY")
TULIA_EMBEDDER = "openai" if _embedder != "offline" and env_str("OPENAI_API_KEY") else "offline"
TULIA_OPENAI_EMBEDDING_MODEL = env_str("TULIA_OPENAI_EMBEDDING_MODEL", "text-embedding-3-small")
