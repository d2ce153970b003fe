"""File names as the file system has them: any bytes but `/` and NUL.

Python reads a name that is not valid UTF-8 (a harness may leave `notes\\xff.txt` in its
workspace) as text with surrogate escapes (`os.fsdecode`: byte 0xff becomes U+DCFF), and
`pathlib` writes such text back as the same bytes. Strict UTF-8 cannot encode it, so a name
is hashed through `raw` (its exact bytes) and shown through `shown` (printable text). JSON
keeps it losslessly as long as `ensure_ascii` stays on (the escape `\\udcff`).
"""

from __future__ import annotations


def raw(text: str) -> bytes:
    """A name (or text holding names) as its bytes on disk, for hashing and byte output.

    This is `os.fsencode` on a UTF-8 system, spelled out so a digest never depends on the
    locale (the same workspace hashes alike on every machine): plain UTF-8 for valid text.
    """
    return text.encode("utf-8", "surrogateescape")


def shown(text: str) -> str:
    """A name as printable text (prompts, reports, console, SQLite): every byte that is not
    UTF-8 written as `\\xNN` (`notes\\xff.txt`); valid names are unchanged."""
    return raw(text).decode("utf-8", "backslashreplace")
