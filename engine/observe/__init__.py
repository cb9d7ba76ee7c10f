"""What a running server tells its operator: Prometheus metrics and OpenTelemetry traces."""
