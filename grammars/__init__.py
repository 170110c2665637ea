"""Grammar files shipped with mllog-check (installed as ``mllog_check.grammars``)."""
