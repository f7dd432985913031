"""pylatexenc's LatexWalker, reading runs of plain text as one token: the same nodes, much faster.

pylatexenc reads text one character at a time (a token object and a specials lookup per
character, more than half of a cold parse). Its node reader only concatenates consecutive
'char' tokens (with the spaces before each) into one chars node, so handing it a whole run of
characters that would each have been a plain 'char' token gives the same node. Only the node
reader gets runs: macro argument parsers and single-expression reads still get one character.
"""
from __future__ import annotations

import functools
import re
import sys

from pylatexenc import latexwalker as lw

# Characters that start something other than a plain 'char' token whatever the specials.
_NOT_PLAIN = "\\%${}"


def _node_reader_code():
    """The code object of get_latex_nodes' inner do_read, the one caller that may get runs."""
    for const in lw.LatexWalker.get_latex_nodes.__code__.co_consts:
        if getattr(const, "co_name", None) == "do_read":
            return const
    return None


_DO_READ = _node_reader_code()


_SPACES = re.compile(r"(?:[^\S\n]|\n(?!\n))*")    # spaces holding no paragraph break ("\n\n")


@functools.lru_cache(maxsize=64)
def _run_pattern(stop_chars: str) -> re.Pattern:
    """Plain characters, each after spaces without a paragraph break: exactly what successive
    get_token calls return as single 'char' tokens (the spaces as each one's pre_space)."""
    plain = "[^\\s" + re.escape(stop_chars) + "]"
    return re.compile(r"(?:(?:[^\S\n]|\n(?!\n))*" + plain + ")+")


class RunWalker(lw.LatexWalker):
    """A LatexWalker whose node reader gets a run of plain text as one 'char' token.

    The latex context's test_for_specials must carry `first_chars` (the characters a special
    can start with); otherwise tokens are pylatexenc's own."""

    def get_token(self, pos, include_brace_chars=None, environments=True,
                  keep_inline_math=None, parsing_state=None, **kwargs):
        if not kwargs and parsing_state is not None and sys._getframe(1).f_code is _DO_READ:
            tok = self._plain_run(pos, include_brace_chars, parsing_state)
            if tok is not None:
                return tok
        return super().get_token(pos, include_brace_chars=include_brace_chars, environments=environments,
                                 keep_inline_math=keep_inline_math, parsing_state=parsing_state, **kwargs)

    def _plain_run(self, pos, include_brace_chars, parsing_state):
        """The 'char' token of the plain text at pos (with the spaces before it), or None where
        pos starts anything else (a macro, a brace, math, a special, a paragraph break, the end)."""
        first = getattr(parsing_state.latex_context.test_for_specials, "first_chars", None)
        if first is None:
            return None
        s = self.s
        start = _SPACES.match(s, pos).end()
        stops = _NOT_PLAIN + first
        if include_brace_chars:
            stops += "".join(a + b for a, b in include_brace_chars)
        m = _run_pattern(stops).match(s, start)
        if m is None:
            return None
        end = m.end()
        return lw.LatexToken(tok="char", arg=s[start:end], pos=start, len=end - start,
                             pre_space=s[pos:start])
