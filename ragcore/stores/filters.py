"""Metadata filters: LlamaIndex's MetadataFilters with its operator names, evaluated column-wise.

A filter compares one metadata key of each node with a value. Filters combine with AND or OR and
nest. As in LlamaIndex, a node without the key never matches (not even ``!=`` or ``nin``) except
with ``is_empty``, which matches exactly the nodes whose key is missing or empty, and a value
that cannot be compared with the filter's (``"a" < 3``) does not match either. The operators
``text_match``, ``text_match_insensitive``, ``any``, ``all`` and ``is_empty`` and the helpers
``ExactMatchFilter`` and ``MetadataFilters.from_dicts`` follow LlamaIndex's simple store.
"""

from __future__ import annotations

import operator as op
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..errors import ConfigError


class FilterOperator(str, Enum):
    """Comparison of a node's metadata value (left) with the filter's value (right)."""

    EQ = "=="
    NE = "!="
    GT = ">"
    LT = "<"
    GTE = ">="
    LTE = "<="
    IN = "in"  # metadata value is one of the filter's values
    NIN = "nin"  # metadata value is none of the filter's values
    CONTAINS = "contains"  # metadata list (or string) contains the filter's value
    TEXT_MATCH = "text_match"  # metadata string contains the filter's string (case matters)
    TEXT_MATCH_INSENSITIVE = "text_match_insensitive"  # the same, ignoring case
    ANY = "any"  # metadata list contains at least one of the filter's values
    ALL = "all"  # metadata list contains every one of the filter's values
    IS_EMPTY = "is_empty"  # key missing, None, "" or []; the filter's value is ignored


class FilterCondition(str, Enum):
    """How the filters of one MetadataFilters combine."""

    AND = "and"
    OR = "or"


_MISSING = object()


def _operator(value: FilterOperator | str) -> FilterOperator:
    if isinstance(value, FilterOperator):
        return value
    text = str(value).strip()
    for member in FilterOperator:
        if text == member.value or text.upper() == member.name:
            return member
    names = ", ".join(f"{m.value!r} ({m.name})" for m in FilterOperator)
    raise ConfigError(f"unknown filter operator {value!r}: use one of {names}")


def _freeze(value: Any) -> Any:
    """Lists become tuples (deeply), so filters are hashable (the store caches their masks) and
    a metadata list compares equal to the same list in a filter."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True, slots=True)
class MetadataFilter:
    """``metadata[key] <operator> value``, e.g. MetadataFilter("page", 3, ">=")."""

    key: str
    value: Any = None  # only is_empty does without one
    operator: FilterOperator = FilterOperator.EQ

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ConfigError(f"filter key must be a non-empty string, got {self.key!r}")
        oper = _operator(self.operator)
        object.__setattr__(self, "operator", oper)
        object.__setattr__(self, "value", _freeze(self.value))
        lists = (FilterOperator.IN, FilterOperator.NIN, FilterOperator.ANY, FilterOperator.ALL)
        if oper in lists and not isinstance(self.value, tuple):
            raise ConfigError(
                f"operator {oper.value!r} needs a list of values for key {self.key!r}, "
                f"got {self.value!r}"
            )
        if self.value is None and oper is not FilterOperator.IS_EMPTY:
            raise ConfigError(
                f"the filter on {self.key!r} has no value: give value=..., or use "
                "operator='is_empty' to find nodes without one"
            )
        texts = (FilterOperator.TEXT_MATCH, FilterOperator.TEXT_MATCH_INSENSITIVE)
        if oper in texts and not isinstance(self.value, str):
            raise ConfigError(
                f"operator {oper.value!r} needs a string for key {self.key!r}, got {self.value!r}"
            )


def ExactMatchFilter(key: str, value: Any) -> MetadataFilter:  # noqa: N802 (LlamaIndex's name)
    """``metadata[key] == value`` (LlamaIndex's ExactMatchFilter)."""
    return MetadataFilter(key, value, FilterOperator.EQ)


@dataclass(frozen=True, slots=True)
class MetadataFilters:
    """Filters combined with ``condition`` ("and" or "or"); entries may be MetadataFilters too."""

    filters: tuple[MetadataFilter | MetadataFilters, ...] = field(default_factory=tuple)
    condition: FilterCondition = FilterCondition.AND

    def __post_init__(self) -> None:
        items = tuple(self.filters)
        for item in items:
            if not isinstance(item, (MetadataFilter, MetadataFilters)):
                raise ConfigError(
                    f"MetadataFilters takes MetadataFilter or MetadataFilters entries, got {item!r}"
                )
        object.__setattr__(self, "filters", items)
        try:
            cond = FilterCondition(str(getattr(self.condition, "value", self.condition)).lower())
        except ValueError as exc:
            raise ConfigError(f"condition {self.condition!r} must be 'and' or 'or'") from exc
        object.__setattr__(self, "condition", cond)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetadataFilters:
        """Build from ``{"key": value, ...}``: every key must equal its value."""
        return cls(filters=tuple(MetadataFilter(k, v) for k, v in data.items()))

    @classmethod
    def from_dicts(
        cls, dicts: Sequence[dict[str, Any]], condition: FilterCondition | str = FilterCondition.AND
    ) -> MetadataFilters:
        """Build from ``[{"key": k, "value": v, "operator": "=="}, ...]`` (LlamaIndex's form;
        the operator defaults to ``==``)."""
        filters = []
        for item in dicts:
            unknown = set(item) - {"key", "value", "operator"}
            if "key" not in item or unknown:
                raise ConfigError(
                    "each filter dict needs 'key' and may have 'value' and 'operator', "
                    f"got {item!r}"
                )
            filters.append(MetadataFilter(item["key"], item.get("value"),
                                          item.get("operator", FilterOperator.EQ)))
        return cls(filters=tuple(filters), condition=condition)


def _safe(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def checked(left: Any, right: Any) -> bool:
        try:
            return bool(compare(left, right))
        except TypeError:
            return False

    return checked


def _contains(left: Any, right: Any) -> bool:
    if isinstance(left, (list, tuple, set, frozenset, str)):
        return right in left
    return False


def _is_in(left: Any, right: tuple) -> bool:
    return left in right


def _text_match(left: Any, right: str) -> bool:
    return isinstance(left, str) and right in left


def _text_match_insensitive(left: Any, right: str) -> bool:
    return isinstance(left, str) and right.lower() in left.lower()


def _holds_any(left: Any, right: tuple) -> bool:
    return isinstance(left, (list, tuple, str)) and any(v in left for v in right)


def _holds_all(left: Any, right: tuple) -> bool:
    return isinstance(left, (list, tuple, str)) and all(v in left for v in right)


def _is_empty(value: Any) -> bool:
    return value is _MISSING or value is None or value == "" or value == () or value == []


_COMPARE: dict[FilterOperator, Callable[[Any, Any], bool]] = {
    FilterOperator.EQ: _safe(op.eq),
    FilterOperator.NE: _safe(op.ne),
    FilterOperator.GT: _safe(op.gt),
    FilterOperator.LT: _safe(op.lt),
    FilterOperator.GTE: _safe(op.ge),
    FilterOperator.LTE: _safe(op.le),
    FilterOperator.IN: _safe(_is_in),
    FilterOperator.NIN: _safe(lambda left, right: not _is_in(left, right)),
    FilterOperator.CONTAINS: _safe(_contains),
    FilterOperator.TEXT_MATCH: _safe(_text_match),
    FilterOperator.TEXT_MATCH_INSENSITIVE: _safe(_text_match_insensitive),
    FilterOperator.ANY: _safe(_holds_any),
    FilterOperator.ALL: _safe(_holds_all),
}


def _filter_mask(flt: MetadataFilter, metadata: Sequence[dict[str, Any]]) -> np.ndarray:
    if flt.operator is FilterOperator.IS_EMPTY:
        return np.fromiter((_is_empty(m.get(flt.key, _MISSING)) for m in metadata),
                           dtype=bool, count=len(metadata))
    compare, key, value = _COMPARE[flt.operator], flt.key, flt.value
    column = (m.get(key, _MISSING) for m in metadata)
    if flt.operator is not FilterOperator.CONTAINS:
        column = (_freeze(v) if isinstance(v, list) else v for v in column)
    return np.fromiter(
        (v is not _MISSING and v is not None and compare(v, value) for v in column),
        dtype=bool,
        count=len(metadata),
    )


def filter_mask(filters: MetadataFilters, metadata: Sequence[dict[str, Any]]) -> np.ndarray:
    """A boolean row mask: which metadata dicts pass ``filters`` (one pass per filter).

    Empty filters pass everything, whatever their condition.
    """
    if not filters.filters:
        return np.ones(len(metadata), dtype=bool)
    masks: Iterable[np.ndarray] = (
        filter_mask(f, metadata) if isinstance(f, MetadataFilters) else _filter_mask(f, metadata)
        for f in filters.filters
    )
    if filters.condition is FilterCondition.AND:
        result = np.ones(len(metadata), dtype=bool)
        for mask in masks:
            result &= mask
    else:
        result = np.zeros(len(metadata), dtype=bool)
        for mask in masks:
            result |= mask
    return result


class MaskCache:
    """The row masks of the last few filters over one list of metadata (a query-time cache).

    The owner calls ``clear`` whenever its rows change. Filters holding an unhashable value
    (e.g. a dict) are evaluated every time.
    """

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._masks: dict[MetadataFilters, np.ndarray] = {}

    def mask(
        self, filters: MetadataFilters, metadata: Callable[[], Sequence[dict[str, Any]]]
    ) -> np.ndarray:
        """``filter_mask(filters, metadata())``, computed once per distinct filters."""
        try:
            cached = self._masks.get(filters)
        except TypeError:
            return filter_mask(filters, metadata())
        if cached is None:
            cached = filter_mask(filters, metadata())
            if len(self._masks) >= self.size:
                self._masks.pop(next(iter(self._masks)))
            self._masks[filters] = cached
        return cached

    def clear(self) -> None:
        self._masks.clear()


def id_mask(rows: dict[str, int], node_ids: Iterable[str], size: int) -> np.ndarray:
    """A boolean row mask: the rows of ``node_ids`` (ids not in ``rows`` are ignored)."""
    wanted = np.zeros(size, dtype=bool)
    wanted[[rows[i] for i in node_ids if i in rows]] = True
    return wanted


def as_filters(value: MetadataFilters | dict[str, Any] | None) -> MetadataFilters | None:
    """Accept MetadataFilters, a ``{key: value}`` equality dict, or None."""
    if value is None or isinstance(value, MetadataFilters):
        return value
    if isinstance(value, dict):
        return MetadataFilters.from_dict(value)
    raise ConfigError(
        f"filters must be MetadataFilters or a {{key: value}} dict, got {type(value).__name__}"
    )


def matches(filters: MetadataFilters, metadata: dict[str, Any]) -> bool:
    """Whether one metadata dict passes ``filters``."""
    return bool(filter_mask(filters, [metadata])[0])
