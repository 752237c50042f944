"""The Registry every extension point uses: names, order, refusal of clashes, helpful misses."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError
from ragcore.registry import Registry


def test_entries_keep_registration_order_and_are_found_by_name():
    registry: Registry[int] = Registry("widget")
    registry.register("b", 2)
    registry.register("a", 1)
    assert registry.names() == ["b", "a"] and list(registry) == [2, 1]
    assert registry.get("a") == 1 and "a" in registry and len(registry) == 2


def test_a_taken_name_is_refused_unless_replaced():
    registry: Registry[int] = Registry("widget")
    registry.register("a", 1)
    with pytest.raises(ConfigError, match="already registered"):
        registry.register("a", 2)
    registry.register("a", 3, replace=True)
    assert registry.get("a") == 3
    registry.unregister("a")
    assert "a" not in registry


def test_an_unknown_name_lists_the_choices():
    registry: Registry[int] = Registry("widget")
    registry.register("simple", 1)
    with pytest.raises(ConfigError, match=r"unknown widget 'fancy': choose one of simple"):
        registry.get("fancy")
    with pytest.raises(ConfigError, match="non-empty word"):
        registry.register(" padded ", 1)
