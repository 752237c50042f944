"""Ingestion: time against the embedder's bare encode, peak memory in a fresh process, queued
workers, and PDF text extractors."""
