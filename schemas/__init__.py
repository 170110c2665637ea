"""Rule and data schemas shipped with mllog-check (installed as ``mllog_check.schemas``)."""
