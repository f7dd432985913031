"""CAM0xx: input problems. The document could not be read in full; what was read is checked."""
from __future__ import annotations

from camlint.rules.base import Rule

INCLUDE_OUTSIDE_PROJECT = Rule(
    code="CAM001", name="include-outside-project", item=None, severity="error",
    summary="An \\input/\\include points outside the project folder; it is not read.",
    rationale="A submission is a self-contained folder. Following a path such as ../../etc/passwd "
              "would read files that are not part of the paper (and is how a hostile submission "
              "could exfiltrate data), so camlint refuses it and the included text is not checked.",
    bad="\\input{../../shared/method}",
    good="%% file: main.tex\n\\input{sections/method}\n%% file: sections/method.tex\nText.\n",
    hint="Move the file into the project folder and include it by a relative path.",
)

INCLUDE_MISSING = Rule(
    code="CAM002", name="include-not-found", item=None, severity="error",
    summary="An included file does not exist in the project.",
    rationale="Whatever the missing file says about the CAM procedure cannot be checked, so every "
              "checklist item it might report is judged without it.",
    bad="\\input{sections/missing}",
    good="%% file: main.tex\n\\input{sections/method}\n%% file: sections/method.tex\nText.\n",
    hint="Add the file to the submission, or fix the path (relative to the main file's folder; "
         "the .tex extension is optional).",
)

INCLUDE_CYCLE = Rule(
    code="CAM003", name="include-cycle", item=None, severity="error",
    summary="Files include each other in a cycle; the repeated include is skipped.",
    rationale="LaTeX would loop forever; camlint reads each file once and reports the cycle.",
    bad="%% file: main.tex\n\\input{b}\n%% file: b.tex\n\\input{main}\n",
    good="%% file: main.tex\n\\input{b}\n%% file: b.tex\nText.\n",
    hint="Remove the include that closes the cycle.",
)

MALFORMED_LATEX = Rule(
    code="CAM004", name="malformed-latex", item=None, severity="warning",
    summary="Unbalanced braces, an unclosed environment or a stray \\end.",
    rationale="camlint reads malformed LaTeX as well as it can, but text after the defect may be "
              "attributed to the wrong environment; the paper will not compile either.",
    bad="\\begin{itemize}\n\\item one\n\\section{Method}",
    good="\\begin{itemize}\n\\item one\n\\end{itemize}\n\\section{Method}",
    hint="Close the environment or balance the braces at the reported line.",
)

UNREADABLE_INPUT = Rule(
    code="CAM005", name="unreadable-input", item=None, severity="error",
    summary="A file could not be read in full (size limit, binary content, encoding).",
    rationale="Reviewers run camlint on untrusted submissions, so it bounds what it reads; text "
              "beyond the limit is not checked.",
    bad="%% file: main.tex\n\\input{data}\n%% file: data.tex\n<NUL><NUL> binary data\n",
    good="%% file: main.tex\n\\input{data}\n%% file: data.tex\nOrdinary manuscript text.\n",
    hint="Keep generated data out of \\input files; include only manuscript text.",
)

RULES = (INCLUDE_OUTSIDE_PROJECT, INCLUDE_MISSING, INCLUDE_CYCLE, MALFORMED_LATEX, UNREADABLE_INPUT)

UNUSED_SUPPRESSION = Rule(
    code="CAM006", name="unused-suppression", item=None, severity="warning",
    summary="A camlint suppression comment matches no finding.",
    rationale="Stale suppressions hide future problems: once the text is fixed, the comment "
              "should go, or it will silence the next regression.",
    bad="% camlint: disable-next-line=CAM103 -- layer given in the appendix\n"
        "We use the last transformer block (index 11).",
    good="We use the last transformer block (index 11).",
    hint="Delete the suppression comment, or point it at the line that needs it.",
    check=lambda analysis: (),   # reported by camlint.rules.suppress after suppressions are applied
)

UNKNOWN_SUPPRESSION = Rule(
    code="CAM007", name="unknown-suppression-code", item=None, severity="warning",
    summary="A camlint suppression names a code or rule name that does not exist.",
    rationale="A misspelt code suppresses nothing, so the finding it was meant for still fails CI "
              "while the comment suggests otherwise.",
    bad="% camlint: disable=CAM999 -- typo", good="% camlint: disable=CAM110 -- signed maps by design",
    hint="Use a code from camlint rules (e.g. CAM110) or a rule name (missing-relu).",
    check=lambda analysis: (),   # reported by camlint.rules.suppress
)

MIXED_ENCODING = Rule(
    code="CAM008", name="mixed-encoding", item=None, severity="warning",
    summary="Some lines of a UTF-8 file are not valid UTF-8; they were read as latin-1.",
    rationale="One stray byte used to turn a whole file into latin-1, garbling every accent and "
              "symbol in it without a word. camlint now reads each line in the encoding it is "
              "written in and names the damaged lines, whose characters may be wrong.",
    bad="%% file: main.tex\nGrad-CAM on the ViT, in Zürich.\n<LATIN1>Café</LATIN1>\n",
    good="%% file: main.tex\nGrad-CAM on the ViT, in Zürich.\nCafé\n",
    hint="Save the file as UTF-8 (most editors: 'Save with encoding').",
)

BLANKET_SUPPRESSION = Rule(
    code="CAM009", name="blanket-suppression-without-reason", item=None, severity="warning",
    summary="A suppression of ALL rules gives no reason.",
    rationale="`disable=ALL` silences every checklist finding from that line on; without a reason "
              "a reviewer cannot tell a deliberate exception from a way to make CI pass. "
              "It never hides input findings (CAM0xx): what camlint could not read is always shown.",
    bad="% camlint: disable=ALL\nGrad-CAM maps of our ViT-B/16.",
    good="% camlint: disable=ALL -- the method is described in the companion paper\n"
         "Grad-CAM maps of our ViT-B/16.",
    hint="Name the rules to silence (disable=CAM105) and give a reason after `--`.",
    check=lambda analysis: (),   # reported by camlint.rules.suppress
)

REDIRECTED_SUPPRESSION = Rule(
    code="CAM010", name="redirected-suppression-code", item=None, severity="warning",
    summary="A camlint suppression names a code that moved into another rule (e.g. CAM207, now CAM602).",
    rationale="The suppression still works (it applies to the rule the code moved to), but the old code "
              "hides where the finding now comes from, and a reader looking it up finds no such rule.",
    bad="% camlint: disable=CAM207 -- the maps come from an earlier block\n"
        "Grad-CAM is computed at the block output (F6) of the last block of our ViT-B/16; the [CLS] "
        "token is discarded before reshaping.",
    good="% camlint: disable=CAM602 -- the maps come from an earlier block\n"
         "Grad-CAM is computed at the block output (F6) of the last block of our ViT-B/16; the [CLS] "
         "token is discarded before reshaping.",
    hint="Write the new code the message names (camlint explain OLD says where a code went).",
    check=lambda analysis: (),   # reported by camlint.rules.suppress
)

RULES = RULES + (UNUSED_SUPPRESSION, UNKNOWN_SUPPRESSION, MIXED_ENCODING, BLANKET_SUPPRESSION,
                 REDIRECTED_SUPPRESSION)
