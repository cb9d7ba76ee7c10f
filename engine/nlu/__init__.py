"""flowctl engine."""
