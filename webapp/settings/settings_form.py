"""The Settings page's backend forms, drawn from the backend registries with no per-backend code.

A backend is offered by its registry entry (``ragcore.backend.Backend``): its label and
description in the choice, its settings model field by field (text per str, password per
``SecretStr``, number per int/float, checkbox per bool, choice per ``Literal``), a "Test
connection" button when it has a connection test, and, for a backend that lists its models,
a model picker filled by that test. A backend registered by a plugin appears here unchanged;
the packaged model's entry is named as people know it (``LABELS``, ``HELPS``).
"""

from __future__ import annotations

import types
from typing import Any, Literal, Mapping, Union, get_args, get_origin

import streamlit as st
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo

from ragcore.backend import Backend, secret_fields, secret_value
from ragcore.present import format as fmt
from ragcore.registry import Registry
from webapp import shell
from webapp.session import Widget, session


# The packaged model has one name for people, the one the Start page and the sidebar use
# (``fmt.BUILT_IN``); its files' names ("qwen2.5-coder-1.5b") are details beside it.
LABELS = {"local": f"{fmt.BUILT_IN[:1].upper()}{fmt.BUILT_IN[1:]} (this computer)"}
HELPS = {"llms.local.model": "Which built-in model writes the answers (its file's name); "
                             "empty: the first one installed."}


def choose_backend(label: str, registry: Registry[Backend[Any]], current: str, *,
                   extra: Mapping[str, tuple[str, str]] | None = None, key: str,
                   labels: Mapping[str, str] | None = None) -> str:
    """A radio of the registered backends (after ``extra`` choices: name -> label, caption),
    named by ``labels`` where it names them (the answering models': ``LABELS``)."""
    offered = {**(extra or {}), **{b.name: ((labels or {}).get(b.name, b.label), b.description)
                                   for b in registry}}
    names = list(offered)
    return st.radio(label, names, index=names.index(current) if current in names else 0,
                    format_func=lambda name: offered[name][0],
                    captions=[caption for _, caption in offered.values()], key=key)


def backend_fields(section: str, backend: Backend[Any], saved: BaseModel, *,
                   in_use: Mapping[str, str] | None = None, advanced: bool = True
                   ) -> dict[str, Any]:
    """The person's values for one backend's settings (validated when saved); ``in_use``: what
    the backend really uses now, by field, said under the field ("0: fitted" shows the count).
    A field marked ``{"advanced": True}`` is drawn only under ``advanced`` (else kept as saved)."""
    prefix = f"{section}.{backend.name}"
    fields = backend.settings.model_fields
    picker = "model" in fields and backend.list_models is not None
    values = {}
    for name, info in fields.items():
        if picker and name == "model":
            continue
        if not advanced and (info.json_schema_extra or {}).get("advanced"):
            values[name] = getattr(saved, name)
            continue
        values[name] = field_input(Widget.setting(section, backend.name, name), name, info,
                                   getattr(saved, name))
        if name in (in_use or {}):
            st.caption(in_use[name])
    if backend.test_connection is not None and st.button("Test connection", key=f"{prefix}.test"):
        run_connection_test(prefix, backend, values)
    if picker:
        values["model"] = model_input(section, backend.name, fields["model"], saved.model)
    return values


def run_connection_test(prefix: str, backend: Backend[Any], values: dict[str, Any]) -> None:
    """Run the backend's connection test; remember its models for the picker."""
    with shell.friendly_errors():
        settings = backend.parse({k: v for k, v in values.items() if v is not None})
        st.success(backend.test_connection(settings))
        if backend.list_models is not None:
            session.listed_models[prefix] = backend.list_models(settings)


def model_input(section: str, backend: str, info: FieldInfo, current: str) -> str:
    """A picker of the models the server listed, or a text box until it has listed them."""
    models = session.listed_models.get(f"{section}.{backend}", [])
    label = info.title or "Model"
    described = HELPS.get(f"{section}.{backend}.model", info.description)
    if models:
        key = Widget.model_pick(section, backend)
        if session.widget(key) in models:  # chosen before (or just downloaded): kept
            return st.selectbox(label, models, key=key, help=described)
        index = models.index(current) if current in models else 0
        return st.selectbox(label, models, index=index, key=key, help=described)
    hint = "Press “Test connection” to choose from the server's models."
    return st.text_input(label, value=current, key=Widget.setting(section, backend, "model"),
                         help=f"{described} {hint}" if described else hint)


def field_input(key: str, name: str, info: FieldInfo, value: Any) -> Any:
    """One settings field as the widget its type calls for."""
    label = info.title or name.replace("_", " ").capitalize()
    kind, choices = field_kind(info.annotation)
    if kind == "secret":
        text = st.text_input(label, value=secret_value(value) or "", type="password",
                             help=info.description, key=key)
        return text or None
    if kind == "bool":
        return st.checkbox(label, value=bool(value), help=info.description, key=key)
    if kind in ("int", "float"):
        number = int if kind == "int" else float
        return st.number_input(label, value=None if value is None else number(value),
                               step=number(1 if kind == "int" else 0.1), help=info.description,
                               key=key)
    if kind == "choice":
        index = choices.index(value) if value in choices else 0
        return st.selectbox(label, choices, index=index, help=info.description, key=key)
    if session.has_widget(key):  # set by a preset button: the widget takes it from there
        return st.text_input(label, help=info.description, key=key)
    return st.text_input(label, value="" if value is None else str(value),
                         help=info.description, key=key)


def field_kind(annotation: Any) -> tuple[str, list[Any]]:
    """What widget a field's type calls for: secret, bool, int, float, choice or text."""
    options = [annotation]
    if get_origin(annotation) in (Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
    first = options[0] if len(options) == 1 else None
    if SecretStr in options:
        return "secret", []
    if get_origin(first) is Literal:
        return "choice", list(get_args(first))
    for kind in (bool, int, float):  # bool first: it is also an int
        if first is kind:
            return kind.__name__, []
    return "text", []


def with_backend(saved: Mapping[str, Any], name: str, values: dict[str, Any]) -> dict[str, Any]:
    """Every backend's saved settings (secrets kept), with ``name``'s replaced by ``values``."""
    kept = {n: v.model_dump() if isinstance(v, BaseModel) else v for n, v in saved.items()}
    return {**kept, name: values}


def has_secret(backend: Backend[Any]) -> bool:
    return bool(secret_fields(backend.settings))
