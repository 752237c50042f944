"""Start: what this app does, which answering backend is active, and what to do next."""

import streamlit as st

from ragcore.present import format as fmt, friendly_date
from ragcore.workspace.names import display_name
from webapp import shell, state


def main() -> None:
    shell.page_setup()
    st.title("Your documents, answered")
    st.write(
        "Upload documents, then ask questions about them. Every answer shows the passages it came "
        "from, and you can see how each answer was made."
    )

    with shell.friendly_errors():
        llm = state.ready_llm(wait=1.0)  # looked for behind the page; it redraws once found
        if llm is None:
            st.info(f"{state.LOOKING} The pages work meanwhile; answers start once it is found.")
        else:
            kind, text = fmt.backend_notice(llm, advanced=shell.advanced_on())
            (st.info if kind == "info" else st.success)(text)
            shell.fallback_note()

    with shell.friendly_errors():
        infos, ws = state.list_indexes(), state.workspace()
        if not infos:
            st.subheader("What to do next")
            st.markdown(
                "1. **Upload your documents** (PDF, Word, PowerPoint, Excel, EPUB, e-mail, text, "
                "HTML …) on the Upload page. They are split into passages and indexed on this "
                "computer.\n"
                "2. **Ask a question** on the Query page, or **chat** about them on the Chat page "
                "(ask “summarise …” for a summary of a file or of everything).\n"
                "3. The answering modes, search options and each answer's steps are one click "
                "away: switch on **Advanced** in the sidebar of the Query or Chat page."
            )
            st.page_link("pages/upload.py", label="Upload documents", icon=":material/upload_file:")
        else:
            st.subheader("Your indexes")
            st.dataframe(
                [
                    {"index": display_name(ws, i.name), "files": i.files, "passages": i.nodes,
                     "updated": friendly_date(i.updated)}
                    for i in infos
                ],
                hide_index=True,
            )
            st.markdown("**What to do next:** ask a question, chat, summarise a file or an "
                        "index (Indexes page), or add more documents.")
            cols = st.columns(3)
            cols[0].page_link("pages/query.py", label="Ask a question", icon=":material/search:")
            cols[1].page_link("pages/chat.py", label="Chat", icon=":material/chat:")
            cols[2].page_link("pages/upload.py", label="Upload more documents",
                              icon=":material/upload_file:")

    if shell.advanced_on():  # a folder's path is an operator's business
        st.caption(f"Everything is stored in the workspace folder `{state.workspace_root()}`.")


with shell.friendly_errors():
    main()
