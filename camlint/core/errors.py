"""Errors that stop the reading of one input: reported as file:line:col, exit status 2."""
from __future__ import annotations


class InputError(Exception):
    def __init__(self, message: str, file: str = "", line: int = 0, col: int = 0):
        super().__init__(message)
        self.message, self.file, self.line, self.col = message, file, line, col

    def where(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}:{self.col}" if self.line else self.file

    def __str__(self) -> str:
        from camlint.safety.sanitize import printable   # file names and messages may carry escapes

        where = self.where()
        return printable(f"{where}: {self.message}" if where else self.message)

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col, "message": self.message}
