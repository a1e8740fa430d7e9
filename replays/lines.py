"""A bundle's bytes as numbered lines, read from a stream of chunks, never held whole.

``BundleLines(chunks)`` gives the verifier one line at a time (:meth:`BundleLines.next_line`),
reading only as far as that line ends, so a bundle that is wrong at line 1 is refused after its
first line however long the rest is. Once the verifier has found a divergence,
:meth:`BundleLines.rest` reads what is left in large blocks (UTF-8 check and line count, at the
speed of ``bytes.decode``) to count the lines and keep the last one: the report names the
bundle's line count, and a footer that is missing or does not match the header outranks a
divergence in a batch, as ``replays.verify`` documents.

The bytes themselves are checked here and raise :class:`Unreadable`: a line that is not UTF-8
(reported at the line of the first bad byte, with the bytes a decoder of the whole file would
name), a last line without its newline, a line longer than ``max_line`` bytes (so memory stays
bounded by one line, whatever the bundle), and no bytes at all.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

MAX_LINE = 256 * 1024  # bytes in one line; the longest line of an exported bundle is ~2 KB


class Unreadable(Exception):
    """The bytes of line ``line`` cannot be a bundle line (see the module docstring)."""

    def __init__(self, line: int, what: str, expected: str, found: str) -> None:
        super().__init__(what)
        self.line, self.what, self.expected, self.found = line, what, expected, found


class BundleLines:
    """The lines of a bundle (text without the newline), read from ``chunks`` as far as needed.

    ``errors`` is the UTF-8 decoder's error handler: ``"strict"`` for bytes from outside;
    ``"surrogatepass"`` lets text that was already a ``str`` pass through unchanged.
    """

    def __init__(self, chunks: Iterable[bytes], max_line: int = MAX_LINE, errors: str = "strict") -> None:
        self.max_line = max_line
        self.errors = errors
        self.count = 0  # lines read so far (handed out or counted)
        self.last: str | None = None  # the text of the last of them
        self.raw = b""  # the bytes of the last line handed out by next_line, with its newline
        self._pieces = self._split(chunks)
        self._buffer = bytearray()
        self._seen = False

    def _split(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """The chunks cut to at most ``max_line`` bytes each, so a line longer than that always
        spans a piece boundary, where :meth:`rest` looks for it."""
        step = max(1, self.max_line)
        for chunk in chunks:
            if len(chunk) <= step:
                yield chunk
            else:
                view = memoryview(chunk)
                for start in range(0, len(chunk), step):
                    yield bytes(view[start:start + step])

    def _fill(self) -> bool:
        piece = next(self._pieces, None)
        if piece is None:
            return False
        if piece:
            self._seen = True
            self._buffer += piece
        return True

    def _decode(self, raw: bytes, first_line: int) -> str:
        """``raw`` (whole lines, each with its newline, or the unterminated last one) as text."""
        try:
            return raw.decode("utf-8", self.errors)
        except UnicodeDecodeError as exc:
            line = first_line + raw.count(b"\n", 0, exc.start)
            raise Unreadable(line, "not valid UTF-8", "UTF-8 text", repr(raw[exc.start:exc.end])) from None

    def _too_long(self, line: int) -> Unreadable:
        return Unreadable(line, f"line longer than {self.max_line} bytes", f"at most {self.max_line} bytes",
                          "a longer line")

    def next_line(self) -> str | None:
        """The next line's text; None after the last. Reads no further than that line's end."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                if end > self.max_line:
                    raise self._too_long(self.count + 1)
                raw = self.raw = bytes(self._buffer[:end + 1])  # with its newline: a bad byte is named as in the whole file
                del self._buffer[:end + 1]
                self.count += 1
                self.last = self._decode(raw, self.count)[:-1]
                return self.last
            if len(self._buffer) > self.max_line:
                raise self._too_long(self.count + 1)
            if not self._fill():
                self._end()
                return None

    def rest(self) -> tuple[int, str | None]:
        """Read everything left: (the number of lines in the bundle, the text of the last one)."""
        while True:
            end = self._buffer.rfind(b"\n")
            if end >= 0:
                if self._buffer.find(b"\n") > self.max_line:  # a line that began in an earlier piece
                    raise self._too_long(self.count + 1)
                block = bytes(self._buffer[:end + 1])
                del self._buffer[:end + 1]
                self._decode(block, self.count + 1)
                start = block.rfind(b"\n", 0, end) + 1
                self.last = block[start:end].decode("utf-8", self.errors)
                self.count += block.count(b"\n")
            if len(self._buffer) > self.max_line:
                raise self._too_long(self.count + 1)
            if not self._fill():
                self._end()
                return self.count, self.last

    def _end(self) -> None:
        """At the end of the bytes: an unterminated last line, or no bytes at all, is unreadable."""
        if self._buffer:
            text = self._decode(bytes(self._buffer), self.count + 1)
            raise Unreadable(self.count + 1, "last line is not terminated by a newline (truncated?)", "\\n", text[-40:])
        if not self._seen:
            raise Unreadable(1, "empty bundle", "a header line", "nothing")
