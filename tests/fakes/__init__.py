"""Fakes of external services (LLM wire servers) shared by tests and benchmarks."""
