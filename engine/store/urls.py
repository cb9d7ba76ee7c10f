"""Store URLs as messages and logs may show them: without a password."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def redact(url: str) -> str:
    """The URL with its password (in the user part, or a ``password=`` parameter) as ``***``.

    >>> redact("postgresql://app:s3cret@db:5432/flowctl?sslmode=require&password=s3cret")
    'postgresql://app:***@db:5432/flowctl?sslmode=require&password=***'
    >>> redact("sqlite:///.flowctl/sessions.db")
    'sqlite:///.flowctl/sessions.db'
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if password is None and "password=" not in parts.query:
        return url  # as given (urlunsplit would drop the empty host of sqlite:///)
    netloc = parts.netloc
    if password is not None:
        netloc = netloc.replace(f":{password}@", ":***@", 1)
    query = parts.query
    if "password=" in query:
        query = urlencode([(k, "***" if k == "password" else v)
                           for k, v in parse_qsl(query, keep_blank_values=True)], safe="*")
    return urlunsplit(parts._replace(netloc=netloc, query=query))
