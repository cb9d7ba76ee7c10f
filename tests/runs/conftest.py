"""Fixtures the runs tests share with other suites: Debian's chromium (the playground
tests) and the session's throwaway PostgreSQL cluster (the store tests)."""

from tests.server.test_playground import browser, page
from tests.store.conftest import postgres

__all__ = ["browser", "page", "postgres"]
