"""Compliance rules engine: a round's rules (schemas/rules/) applied to one log's records."""
