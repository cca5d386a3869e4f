"""The progress bar: drawn on a terminal, silent otherwise."""

import io

from cryptobench.progress import ProgressBar


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_not_a_terminal():
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar.update(5, 10, "openssl/default sha256 hash 1 KiB")
    bar.close()
    assert out.getvalue() == ""


def test_draws_percentage_eta_and_the_current_case_on_a_terminal():
    out = FakeTerminal()
    bar = ProgressBar(stream=out)
    bar.update(0, 200, "starting")
    bar.update(200, 200, "openssl/default sha256 hash 1 KiB")
    text = out.getvalue()
    assert "\r" in text and "100%" in text and "ETA" in text
    assert "openssl/default sha256 hash 1 KiB" in text
    bar.close()
    assert out.getvalue().endswith("\r")
