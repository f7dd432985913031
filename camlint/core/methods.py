"""What each CAM method decides by itself: its own weighting and ReLU rule, and whether it has a
target at all. Shared by the lint rules (judge, consistency) and by verify (spec, engine).
Torch-free: linting imports this module.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Relu(StrEnum):
    """Where a ReLU (clamp at 0) is applied. A placement set holds any of the first three;
    NONE is how a spec says the set is empty (a signed map)."""
    AFTER_COMBINATION = "after_combination"
    ON_GRADIENTS = "on_gradients"
    ON_PRODUCTS = "on_products"
    NONE = "none"


def relu_placements(values) -> frozenset[Relu]:
    """The placement set of canonical names (NONE dropped); an unknown name is refused by name."""
    out = set()
    for value in values:
        try:
            out.add(Relu(value))
        except ValueError:
            raise ValueError(f"relu: {value!r} is not a ReLU placement "
                             f"(known: {', '.join(r.value for r in Relu)})") from None
    return frozenset(out - {Relu.NONE})


# Channel weightings that use no gradient (a map is computed without a target).
GRADIENT_FREE_WEIGHTINGS = frozenset({"eigen"})


@dataclass(frozen=True)
class MethodRule:
    """What `weighting: method_rule` (or no weighting) and no `relu` mean for this method."""
    name: str
    weighting: str
    relu: frozenset[Relu]
    # Class-agnostic: the map has no target class (EigenCAM, plain attention rollout), so the
    # target key does not apply and no gradient can vanish.
    class_agnostic: bool = False

    @property
    def not_applicable(self) -> frozenset[str]:
        """Checklist keys this method makes inapplicable when a paper states nothing for them."""
        return frozenset({"target"}) if self.class_agnostic else frozenset()


def _rule(name: str, weighting: str, *relu: Relu, class_agnostic: bool = False) -> MethodRule:
    return MethodRule(name, weighting, relu_placements(relu), class_agnostic)


_AFTER = Relu.AFTER_COMBINATION
METHOD_RULES: dict[str, MethodRule] = {r.name: r for r in (
    _rule("gradcam", "gap_gradients", _AFTER),
    _rule("hirescam", "elementwise", _AFTER),
    _rule("gradcam-elementwise", "elementwise", Relu.ON_PRODUCTS, _AFTER),
    _rule("layercam", "elementwise", Relu.ON_GRADIENTS, _AFTER),
    _rule("gradcam++", "gradcam++", _AFTER),
    _rule("xgradcam", "xgradcam", _AFTER),
    _rule("eigencam", "eigen", _AFTER, class_agnostic=True),
    _rule("eigengradcam", "eigen", _AFTER),
    _rule("scorecam", "scorecam", _AFTER),
    _rule("attention-gradcam", "gap_gradients", _AFTER),
    _rule("gae", "elementwise", Relu.ON_PRODUCTS),
    _rule("grad-rollout", "elementwise", _AFTER),
    _rule("rollout", "method_rule", Relu.NONE, class_agnostic=True),
)}
# A method without a rule of its own ("other", or one camlint does not know) is read as Grad-CAM's.
DEFAULT_RULE = MethodRule("other", "gap_gradients", frozenset({_AFTER}))

CLASS_AGNOSTIC_METHODS = frozenset(r.name for r in METHOD_RULES.values() if r.class_agnostic)


def method_rule(name: str | None) -> MethodRule:
    return METHOD_RULES.get(name, DEFAULT_RULE) if isinstance(name, str) else DEFAULT_RULE
