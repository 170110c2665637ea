"""Output formats for problems (text, JSON, JUnit, SARIF, GitHub annotations)."""
