"""settings of the test project: the server comes from the libpq variables
PGHOST, PGPORT, PGUSER and PGDATABASE (test/t/053_orms.pl sets them)"""
import os

SECRET_KEY = "only-for-the-idgen-tests"
DEBUG = False
USE_TZ = True
INSTALLED_APPS = ["shop"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.environ.get("PGHOST", ""),
        "PORT": os.environ.get("PGPORT", ""),
        "USER": os.environ.get("PGUSER", ""),
        "NAME": os.environ.get("PGDATABASE", "postgres"),
    }
}
