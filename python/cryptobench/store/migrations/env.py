"""Alembic's environment for the results store: run on the connection the store hands over
(config.attributes["connection"]), for SQLite and PostgreSQL alike."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
