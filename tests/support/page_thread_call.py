"""A Streamlit page that asks the local engine in its own thread, as the Chat page rewrites a
follow-up before its search: llama.cpp is ``test_llm_slots.ScriptedServer`` reading a prompt
for minutes. Its Stop button (any click) reruns the page; the page then says whether the
server was told to stop, and how many batches it had read (``tests/browser``)."""

import sys
import time
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ragcore" / "llms"))

from test_llm_slots import LONG_READ, ScriptedServer  # noqa: E402

from ragcore.llms.local import engine as engine_module  # noqa: E402
from webapp.waiting import waiting_notice  # noqa: E402


@st.cache_resource
def scripted_engine() -> engine_module.LocalEngine:
    engine_module._load_server = lambda config, threads: ScriptedServer()
    return engine_module.LocalEngine(
        engine_module.EngineConfig(Path("scripted.gguf"), 256, 1, 1))


engine = scripted_engine()
st.button("Stop")
time.sleep(0.5)  # llama.cpp is told at its next batch
st.write(f"stopped: {engine._server.stopped.is_set()}")
if not st.session_state.get("asked"):
    st.session_state.asked = True
    st.write("The model reads.")
    with waiting_notice():
        engine.complete(LONG_READ)
