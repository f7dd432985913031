"""Validate a camspec against schemas/camspec-1.schema.json and say what is wrong in words.

jsonschema reports every failed branch of every anyOf; a person wants one sentence per problem,
the most relevant first, at the line of the offending YAML node.
"""
from __future__ import annotations

import functools

from camlint.core import vocab
from camlint.core.keys import KEYS
from camlint.core.resources import camspec_schema
from camlint.rules.base import Hit, Rule
from camlint.rules.spec import SPEC_DUPLICATE_KEY as DUPLICATE_KEY
from camlint.rules.spec import SPEC_INVALID_VALUE as INVALID
from camlint.rules.spec import SPEC_NONCANONICAL_VALUE as NONCANONICAL
from camlint.rules.spec import SPEC_UNKNOWN_KEY as UNKNOWN_KEY
from camlint.safety.yamlsafe import LoadedYAML

_JSON_TYPES = {"integer": "an integer", "number": "a number", "string": "a string",
               "object": "a mapping", "array": "a list", "boolean": "true or false", "null": "null"}


@functools.lru_cache(maxsize=1)
def validator():
    import jsonschema  # imported here: only specs need it

    return jsonschema.Draft202012Validator(camspec_schema())


def dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the spec"


def _describe(value) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if value is None:
        return "an empty value"
    return "a mapping" if isinstance(value, dict) else "a list"


def _slot(path) -> str:
    """'target.kind' for ('target', 'kind'); list indices dropped ('tokens.drop')."""
    return ".".join(p for p in path if isinstance(p, str))


def _branch_score(errors) -> tuple:
    """Lower is better: a branch whose shape matches the value explains the failure best."""
    at_root = [e for e in errors if not e.relative_path]
    mismatch = any(e.validator in ("type", "const") for e in at_root)
    missing = sum(e.validator == "required" for e in at_root)
    return (mismatch, missing, len(errors))


def _leaf_errors(error):
    """Descend anyOf/oneOf to the branch that explains the failure best, then its deepest error."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        scored = sorted(branches.values(), key=_branch_score)
        best = scored[0]
        if all(len(b) == 1 and b[0].validator == "required" and not b[0].relative_path for b in scored):
            return error  # "one of these fields is required": say so at this level
        error = max(best, key=lambda e: (len(e.absolute_path), e.validator != "required"))
    return error


def _example(schema: dict) -> str:
    examples = [e for e in schema.get("examples", []) if not isinstance(e, (dict, list))]
    return " or ".join(repr(e) if isinstance(e, str) else str(e) for e in examples[:2])


def _message(error) -> tuple[Rule, str, tuple]:
    """(rule, sentence, path) for one leaf error."""
    path = tuple(error.absolute_path)
    where = dotted(path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    v = error.validator
    if v == "type":
        guess = vocab.canonical(_slot(path), error.instance).value if isinstance(error.instance, bool) else None
        if guess is not None:   # YAML 1.1 reads an unquoted no/off as false
            return (NONCANONICAL, f"{where}: the unquoted value reads as {str(error.instance).lower()}; "
                    f"read as {guess!r} (quote it, or write {guess})", path)
        want = error.validator_value
        want = " or ".join(_JSON_TYPES.get(t, t) for t in (want if isinstance(want, list) else [want]))
        example = _example(schema)
        extra = f", e.g. {example}" if example else ""
        return INVALID, f"{where} must be {want}{extra}, not {_describe(error.instance)}", path
    if v in ("anyOf", "oneOf"):   # only reached when each branch wants a different field
        fields = [e.validator_value[0] for e in error.context if e.validator == "required"]
        return INVALID, f"{where} needs one of {', '.join(repr(f) for f in dict.fromkeys(fields))}", path
    if v in ("enum", "const"):
        allowed = error.validator_value if v == "enum" else [error.validator_value]
        guess = vocab.canonical(_slot(path), error.instance).value
        if guess is not None and guess in allowed and guess != error.instance:
            return (NONCANONICAL, f"{where}: {error.instance!r} is not a canonical value; "
                    f"read as {guess!r}", path)
        choices = ", ".join(str(a) for a in allowed)
        return INVALID, f"{where}: {error.instance!r} is not one of: {choices}", path
    if v == "additionalProperties":
        known = list(schema.get("properties", {}))
        extras = [k for k in error.instance if k not in known and not k.startswith("x-")]
        import difflib

        parts = []
        for k in extras:
            close = difflib.get_close_matches(k, known, n=1)
            parts.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        known_list = ", ".join(known)
        return (UNKNOWN_KEY, f"unknown key {', '.join(parts)} in {where}; known keys: {known_list}",
                path + (extras[0],) if extras else path)
    if v == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return INVALID, f"{where} is missing {', '.join(repr(m) for m in missing)}", path
    if v in ("minItems", "maxItems"):
        n = error.validator_value
        return INVALID, f"{where} must have {'at least' if v == 'minItems' else 'at most'} {n} item(s)", path
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        rel = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[v]
        return INVALID, f"{where} must be {rel} {error.validator_value}, not {error.instance}", path
    if v == "pattern":
        return INVALID, f"{where}: {error.instance!r} does not have the expected form ({schema.get('description', error.validator_value)})", path
    if v == "minLength":
        return INVALID, f"{where} must not be empty", path
    if v == "uniqueItems":
        return INVALID, f"{where} lists an item twice", path
    return INVALID, f"{where}: {error.message}", path


def _wrong_shape(leaf) -> bool:
    """A mapping, list or scalar where the schema wants another of the three (`model: 5`,
    `layer: 2.5`, `inputs: 5`): code that reads the value would break on it. A scalar of the
    wrong kind (`block: eleven`) is reported but kept: it is read as text."""
    if leaf.validator != "type":
        return False
    want = leaf.validator_value if isinstance(leaf.validator_value, list) else [leaf.validator_value]
    shape = "object" if isinstance(leaf.instance, dict) else "array" if isinstance(leaf.instance, list) else "scalar"
    return shape not in [t if t in ("object", "array") else "scalar" for t in want]


def well_typed(data: object) -> dict:
    """The camspec without the top-level keys whose value has the wrong shape somewhere inside
    (`model: 5`, `layer: 2.5`): `validate` reports each (CAM301), and every rule, the judge and
    verify then read only values of the shapes the schema allows. A key written as free text
    (`layer: second-to-last block`) is kept: the extraction reads it with the prose vocabulary."""
    if not isinstance(data, dict):
        return {}
    bad = set()
    for error in validator().iter_errors(data):
        path = tuple(error.absolute_path)
        if path and path[0] not in bad and not isinstance(data.get(path[0]), str) \
                and _wrong_shape(_leaf_errors(error)):
            bad.add(path[0])
    return {k: v for k, v in data.items() if k not in bad}


def _relevance(error) -> tuple:
    # Top-level key order first (a reader goes top-down), deeper errors are more specific.
    path = list(error.absolute_path)
    head = path[0] if path else ""
    order = KEYS.index(head) if head in KEYS else len(KEYS)
    return (order, -len(path))


def validate(data: object, loaded: LoadedYAML, file: str) -> list[Hit]:
    """Schema problems, one per failed location, most relevant first, each at its YAML line."""
    problems: list[Hit] = []
    if not isinstance(data, dict):
        line, col = loaded.position(())
        return [INVALID.hit(f"a camspec is a mapping of checklist keys, not {_describe(data)}",
                            file, line, col)]
    seen = set()
    for error in sorted(validator().iter_errors(data), key=_relevance):
        if error.validator in ("if", "then"):
            continue
        leaf = _leaf_errors(error)
        path = tuple(leaf.absolute_path)
        # A missing sub-field of a checklist key is a completeness question (CAM1xx says it better).
        if leaf.validator in ("required", "anyOf", "oneOf") and path and path[0] in KEYS:
            continue
        if leaf.validator == "not":   # heads: n/a under an attention location (a CAM2xx rule)
            continue
        if vocab.is_placeholder(leaf.instance) and path and path[0] in KEYS:
            continue   # TODO / TBD: a completeness question, not a wrong value
        rule, text, at = _message(leaf)
        if (rule.code, at) in seen:
            continue
        seen.add((rule.code, at))
        line, col = loaded.position(at)
        problems.append(rule.hit(text, file, line, col))
    for message, line, col in loaded.warnings:
        problems.append(DUPLICATE_KEY.hit(message, file, line, col))
    return problems
