"""Errors a user can act on. The CLI prints them as one line, never as a traceback."""


class UserError(Exception):
    """A mistake in the user's input or environment (bad argument, unknown name, broken file)."""


class Interrupted(Exception):
    """Ctrl-C or SIGTERM ended a measurement that keeps what it stored; the message says what
    was kept and how to go on. The CLI prints it and exits with EXIT_INTERRUPTED."""


def one_line(message: str) -> str:
    """The message as one line: a line break or other control character the user typed (an
    argument, a file name) is shown escaped, so an error stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


# Exit statuses of the `cryptobench` command, shared by every command and scenario.
EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
