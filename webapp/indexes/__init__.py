"""An index as the app shows it: its documents and chunks, names, sharing, store, summaries,
corpus pictures, and the background jobs that change it."""
