"""The engine's own template filters (``won``, ``money``, ``josa``) and jinja2's globals
once its environment exists: what both the plans' readers and the jinja2 environment use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.compiler.josa import josa


def won(amount: Any) -> str:
    """10000 -> '1만원', 35000 -> '3만 5,000원', 1500 -> '1,500원', 150000000 -> '1억
    5,000만원' (Korean won, spoken style: each unit said with its own number)."""
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return str(amount)
    sign, n = ("-" if amount < 0 else ""), abs(int(amount))
    eok, n = divmod(n, 10**8)
    man, rest = divmod(n, 10**4)
    parts = [f"{eok:,}억"] * bool(eok) + [f"{man:,}만"] * bool(man) + [f"{rest:,}"] * bool(
        rest or not (eok or man))
    return sign + " ".join(parts) + "원"


def money(amount: Any, currency: str = "KRW") -> str:
    """Format an amount for its currency: KRW spoken style, others with a symbol or code."""
    if currency == "KRW":
        return won(amount)
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return str(amount)
    symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency)
    text = f"{abs(amount):,.2f}".removesuffix(".00")
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{text} {currency}"


FILTERS: dict[str, Callable[..., Any]] = {"won": won, "money": money, "josa": josa}
"""The engine's own filters (jinja2's environment has them too)."""

GLOBALS: dict[str, Any] = {}
"""jinja2's globals (range, dict, ...), once its environment exists (empty before): a turn
context starts from them, so a full template renders its context as is."""


__all__ = ["FILTERS", "GLOBALS", "money", "won"]
