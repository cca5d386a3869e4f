"""Errors a user can act on. The CLI prints them as one line, never as a traceback."""


class UserError(Exception):
    """A mistake in the user's input or environment (bad argument, unknown name, broken file)."""


# Exit statuses of the `cryptobench` command, shared by every command and scenario.
EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
