"""A passage as people read it: markup rendered, PDF lines reflowed, its place on the page.

    markup.py          Markdown and reST rendered, the retrieved and cited parts marked
    plain.py           a passage as one run of plain text, for an excerpt: Markdown's marks dropped
    rst_text.py        reStructuredText as Markdown
    reflow.py          PDF passages shown as paragraphs, not the page's printed lines
    page_boxes.py      where a passage sits on a PDF page (its characters' boxes)
    section.py         where a passage sits in a file without pages: its section's heading

Markdown's HTML and mdBook markup turned into their text, and code fences kept the right way
round in a passage cut out of a file, are ``ragcore.readers.markdown``'s (the answer prompt
reads passages the same way).
"""
