"""The Settings page's parts: the backend forms, model set-up, the packaged models, and the
"Advanced" switch every page reads."""
