"""``show_progress=True``: a tqdm bar over ragcore's ``progress(done, total)`` callbacks."""

from __future__ import annotations

from typing import Callable

Progress = Callable[[int, int], None]


def progress_bar(show: bool, description: str) -> Progress | None:
    """A progress callback drawing a bar on stderr (None when ``show`` is false)."""
    if not show:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # no bar without tqdm; the work itself is unaffected
        return None
    bar: list = []

    def update(done: int, total: int) -> None:
        if not bar:
            bar.append(tqdm(total=total, desc=description))
        bar[0].total = total
        bar[0].n = done
        bar[0].refresh()
        if done >= total:
            bar[0].close()

    return update
