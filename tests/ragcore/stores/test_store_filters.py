"""Metadata filter semantics and validation (LlamaIndex's operators and rules)."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError
from ragcore.stores import FilterOperator, MetadataFilter, MetadataFilters, as_filters, matches

PAGE = {"file_name": "a.pdf", "page": 3, "tags": ["nist", "zero trust"], "title": "Zero Trust"}


@pytest.mark.parametrize(
    "flt, expected",
    [
        (MetadataFilter("page", 3), True),
        (MetadataFilter("page", 3, FilterOperator.NE), False),
        (MetadataFilter("page", 2, ">"), True),
        (MetadataFilter("page", 3, "<"), False),
        (MetadataFilter("page", 3, ">="), True),
        (MetadataFilter("page", 3, "<="), True),
        (MetadataFilter("file_name", ["a.pdf", "b.pdf"], "in"), True),
        (MetadataFilter("file_name", ["b.pdf"], "nin"), True),
        (MetadataFilter("tags", "nist", "contains"), True),
        (MetadataFilter("title", "Trust", "contains"), True),
        (MetadataFilter("tags", ["nist", "zero trust"], "=="), True),
        (MetadataFilter("tags", [["nist", "zero trust"]], "in"), True),
        # a missing key never matches, even for "not" operators (as in LlamaIndex)
        (MetadataFilter("author", "x", "!="), False),
        (MetadataFilter("author", ["x"], "nin"), False),
        # values that cannot be compared do not match instead of raising
        (MetadataFilter("file_name", 3, ">"), False),
        (MetadataFilter("page", "x", "contains"), False),
    ],
)
def test_operators(flt, expected):
    assert matches(MetadataFilters(filters=[flt]), PAGE) is expected


def test_empty_filters_pass_everything():
    assert matches(MetadataFilters(), PAGE)
    assert matches(MetadataFilters(condition="or"), PAGE)


def test_or_and_nesting():
    wrong_page = MetadataFilter("page", 4)
    right_file = MetadataFilter("file_name", "a.pdf")
    assert not matches(MetadataFilters(filters=[wrong_page, right_file]), PAGE)
    assert matches(MetadataFilters(filters=[wrong_page, right_file], condition="or"), PAGE)
    nested = MetadataFilters(filters=[right_file, MetadataFilters(filters=[wrong_page])])
    assert not matches(nested, PAGE)


def test_dict_shorthand_means_equality():
    filters = as_filters({"file_name": "a.pdf", "page": 3})
    assert isinstance(filters, MetadataFilters) and matches(filters, PAGE)
    assert as_filters(None) is None


def test_filters_are_hashable_with_list_values():
    flt = MetadataFilters(filters=[MetadataFilter("page", [1, 2], "in")])
    assert hash(flt) == hash(MetadataFilters(filters=[MetadataFilter("page", [1, 2], "in")]))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: MetadataFilter("page", 1, "~="), "unknown filter operator"),
        (lambda: MetadataFilter("", 1), "non-empty string"),
        (lambda: MetadataFilter("page", 1, "in"), "needs a list"),
        (lambda: MetadataFilters(filters=[{"page": 1}]), "MetadataFilter"),
        (lambda: MetadataFilters(condition="xor"), "'and' or 'or'"),
        (lambda: as_filters([1]), "MetadataFilters or a"),
    ],
)
def test_bad_filters_say_what_to_do(make, message):
    with pytest.raises(ConfigError, match=message):
        make()
