"""One name for the packaged model on default screens: "the built-in model", as the Start page
and the sidebar say it, its file's name only as a detail beside it (issue 66: Settings said
"Packaged language models", "Packaged model" and "qwen2.5-coder-1.5b")."""

from __future__ import annotations

from test_app_pages import app_env, built_workspace, docs_ws, open_page  # noqa: F401
from test_app_words import local_model_ws  # noqa: F401


def said(node) -> list[str]:
    """Every text an element and its children show: labels, values, helps, options, captions."""
    out = []
    for attr in ("label", "value", "help", "placeholder", "options"):
        value = getattr(node, attr, None)
        values = value if isinstance(value, (list, tuple)) else [value]
        out += [v for v in values if isinstance(v, str)]
    out += list(getattr(getattr(node, "proto", None), "captions", None) or [])
    for child in (getattr(node, "children", None) or {}).values():
        out += said(child)
    return out


def simple_settings(root):
    (root / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    return open_page("settings")


def test_settings_name_the_packaged_model_as_the_built_in_model(local_model_ws):  # noqa: F811
    at = simple_settings(local_model_ws)
    shown = said(at._tree)
    assert not [s for s in shown if "packaged" in s.lower()], [
        s for s in shown if "packaged" in s.lower()]
    assert "The built-in model (this computer)" in at.radio[0].options
    assert "Built-in models" in [h.value for h in at.subheader]
    rows = [m.value for m in at.markdown if m.value.startswith("**Built-in model**")]
    assert rows == ["**Built-in model** (qwen2.5-coder-1.5b) · in use",
                    "**Built-in model** (smollm2-135m)"]
    assert "Answering: the built-in model" in [c.value for c in at.sidebar.caption]


def test_using_and_timing_a_model_name_it_the_same_way(local_model_ws):  # noqa: F811
    at = simple_settings(local_model_ws)
    [b for b in at.button if b.key == "packaged.speed.qwen2.5-coder-1.5b"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    timed = [s.value for s in at.success if "words a second" in s.value]
    assert timed and timed[0].startswith("The built-in model (qwen2.5-coder-1.5b) reads about")
    [b for b in at.button if b.key == "packaged.use.smollm2-135m"][0].click().run()
    assert "Saved: answers are now written by the built-in model (smollm2-135m)." in [
        s.value for s in at.success]


def test_the_quoting_notice_names_the_built_in_model_as_the_other_pages_do():
    from ragcore.present.format import backend_notice

    class Quoting:  # the extractive answerer, as the notice reads it
        model = "extractive"

    _, text = backend_notice(Quoting(), advanced=False)
    assert "packaged" not in text.lower() and "choose the built-in model" in text
