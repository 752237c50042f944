"""ragcore's metadata filters as a Postgres WHERE clause over a JSONB column, values bound.

``filters_sql(filters)`` returns a ``psycopg.sql.Composed`` whose every key and value is a bound
parameter (``sql.Literal`` is never used for them): nothing a user typed becomes SQL text. The
meaning is ``ragcore.stores.filters``' exactly: a row without the key, or with JSON null, never
matches; ``>``/``<`` compare numbers with numbers and strings with strings (by code point, as
Python does) and anything else does not match; ``contains`` looks inside a JSON array or a
string; nested filters combine with AND/OR.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from ...errors import ConfigError
from ..filters import FilterCondition, MetadataFilter, MetadataFilters

_RANGE = {">": ">", "<": "<", ">=": ">=", "<=": "<="}  # the only operators put in SQL text


def _json(value: Any) -> Jsonb:
    return Jsonb(list(value) if isinstance(value, tuple) else value)


_PRESENT = sql.SQL("(metadata ? %s AND jsonb_typeof(metadata -> %s) <> 'null')")


def _one(flt: MetadataFilter) -> tuple[sql.Composable, list[Any]]:
    """One filter's clause and its parameters (the key is a parameter too)."""
    key, value, op = flt.key, flt.value, flt.operator.value
    if op == "==":
        return sql.SQL("metadata -> %s = %s"), [key, _json(value)]
    if op == "!=":
        return sql.SQL("({} AND metadata -> %s <> %s)").format(_PRESENT), [
            key, key, key, _json(value)]
    if op in _RANGE:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"filter {key!r} {op} {value!r}: the Postgres store compares "
                              "only numbers or strings with >, <, >=, <=")
        if isinstance(value, str):
            template = ("(jsonb_typeof(metadata -> %s) = 'string' AND "
                        "(metadata ->> %s) COLLATE \"C\" " + _RANGE[op] + " %s COLLATE \"C\")")
        else:
            template = ("(jsonb_typeof(metadata -> %s) = 'number' AND "
                        "(metadata ->> %s)::numeric " + _RANGE[op] + " %s::numeric)")
        return sql.SQL(template), [key, key, value]
    if op in ("in", "nin"):
        options = [Jsonb(list(v) if isinstance(v, tuple) else v) for v in value]
        if op == "in":
            return sql.SQL("metadata -> %s = ANY(%s)"), [key, options]
        return sql.SQL("({} AND NOT metadata -> %s = ANY(%s))").format(_PRESENT), [
            key, key, key, options]
    if op == "contains":
        return _contains(key, value)
    if op in ("text_match", "text_match_insensitive"):
        if not isinstance(value, str):
            return sql.SQL("FALSE"), []
        fold = "lower" if op == "text_match_insensitive" else ""
        return sql.SQL("(jsonb_typeof(metadata -> %s) = 'string' AND "
                       f"strpos({fold}(metadata ->> %s), {fold}(%s)) > 0)"), [key, key, value]
    if op in ("any", "all"):  # each value held by a list, or found in a string
        clauses = [_contains(key, v) for v in value]
        if not clauses:
            if op == "any":
                return sql.SQL("FALSE"), []
            return sql.SQL("jsonb_typeof(metadata -> %s) IN ('array', 'string')"), [key]
        joiner = sql.SQL(" OR " if op == "any" else " AND ")
        return (sql.SQL("({})").format(joiner.join(c for c, _ in clauses)),
                [p for _, params in clauses for p in params])
    if op == "is_empty":
        return sql.SQL("(NOT metadata ? %s OR metadata -> %s IN "
                       "('null'::jsonb, '\"\"'::jsonb, '[]'::jsonb))"), [key, key]
    raise ConfigError(f"unknown filter operator {op!r}")  # pragma: no cover


def _contains(key: str, value: Any) -> tuple[sql.Composable, list[Any]]:
    """A list at ``key`` holding ``value``, or (for a string value) a string containing it."""
    in_array = ("(jsonb_typeof(metadata -> %s) = 'array' AND "
                "metadata -> %s @> jsonb_build_array(%s::jsonb))")
    params: list[Any] = [key, key, _json(value)]
    if not isinstance(value, str):
        return sql.SQL(in_array), params
    in_text = ("(jsonb_typeof(metadata -> %s) = 'string' AND "
               "strpos(metadata ->> %s, %s) > 0)")
    return sql.SQL(f"({in_array} OR {in_text})"), [*params, key, key, value]


def filters_sql(filters: MetadataFilters | None) -> tuple[sql.Composable, list[Any]]:
    """(WHERE clause, its parameters) for ``filters``; TRUE for None or empty filters."""
    if filters is None or not filters.filters:
        return sql.SQL("TRUE"), []
    parts: list[sql.Composable] = []
    params: list[Any] = []
    for item in filters.filters:
        if isinstance(item, MetadataFilters):
            clause, more = filters_sql(item)
        else:
            clause, more = _one(item)
        parts.append(clause)
        params += more
    joiner = " AND " if filters.condition is FilterCondition.AND else " OR "
    return sql.SQL("({})").format(sql.SQL(joiner).join(parts)), params
