"""Fixtures the runs tests share with other suites: Debian's chromium (the playground
tests) and the session's throwaway PostgreSQL cluster (the store tests), and what a page
did wrong while a test drove it."""

import pytest
from playwright.sync_api import Page

from tests.server.test_playground import browser, page
from tests.store.conftest import postgres

__all__ = ["browser", "page", "postgres", "problems"]


@pytest.fixture
def problems(page: Page) -> list[str]:
    """Script errors, CSP violations and failed API calls of ``page`` (the browser's own
    favicon request is a 404 Playwright reports as no response: its console line is left
    out); a test asserts the list is empty at its end."""
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error"
            and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda err: found.append(str(err)))
    page.on("response", lambda r: found.append(f"{r.status} {r.url}")
            if r.status >= 400 else None)
    return found
