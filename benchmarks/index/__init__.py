"""The embedded index as it grows: a commit's cost, scale to 1M vectors, and readers beside a
committing writer (a drill, not a figure)."""
