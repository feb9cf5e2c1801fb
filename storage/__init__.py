"""Durable state in SQL: typed models, the session scope, repositories and schema migrations."""
