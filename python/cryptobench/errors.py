"""Errors a user can act on. The CLI prints them as one line, never as a traceback."""


class UserError(Exception):
    """A mistake in the user's input or environment (bad argument, unknown name, broken file)."""
