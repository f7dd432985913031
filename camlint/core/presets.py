"""Presets: published ViT adaptations of Grad-CAM, each with what it fixes in a camspec.

A paper that says it follows one of these (by citing its paper, or `preset: NAME` in a spec)
has specified every key the preset fixes. The reference engine (camlint.verify) implements each
preset; `camlint presets` lists them. Sources: shared/reference/adaptations.md and engines.md.
This module is plain data: the lint path imports it without torch.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from camlint.rules.findings import Evidence
from camlint.checklist.judge import status_of
from camlint.core.keys import MISSING, PARTIAL
from camlint.core.vocab import is_placeholder

GRADCAM_TAIL = {"heads": "n/a", "reshape": {"grid": "auto", "order": "row_major"},
                "postprocess": {"normalize": "minmax", "eps": 1e-7, "upsample": "bilinear",
                                "size": "input", "order": "pytorch-grad-cam"}}
PGC_BASE = {"layer": {"block": -1}, "location": "F1", "target": {"kind": "logit", "class": "predicted"},
            "tokens": {"drop": ["cls"]}, **GRADCAM_TAIL,
            "implementation": {"library": "pytorch-grad-cam", "version": "1.5.5"}}
PGC_CITE = (r"pytorch[- ]grad[- ]cam(?:'s)? (?:vit|vision transformer)s? (?:tutorial|example|recipe)",
            r"(?:vit|vision transformer) (?:tutorial|example) of pytorch[- ]grad[- ]cam")
ATTN_TAIL = {"reshape": {"grid": "auto", "order": "row_major"},
             "postprocess": {"normalize": "minmax", "eps": 0.0, "upsample": "bilinear", "size": "input"}}


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    citation: str
    summary: str                       # what it computes, one sentence
    fixes: dict                        # camspec-shaped values of the keys it fixes
    # Bibliography titles or prose that name the adaptation. The CNN papers of the variants
    # (Grad-CAM++, HiResCAM, LayerCAM...) are not among them: citing them says nothing about the
    # transformer adaptation, just as citing the original Grad-CAM paper does not.
    cite_patterns: tuple[str, ...] = ()
    params: dict = field(default_factory=dict)   # engine parameters beyond the camspec keys

    def matches(self, text: str) -> bool:
        return any(re.search(p, text, re.I) for p in self.cite_patterns)


PRESETS: tuple[Preset, ...] = (
    Preset("pytorch-grad-cam-vit", "pytorch-grad-cam ViT recipe (GradCAM)",
           "J. Gildenblat and contributors, pytorch-grad-cam, tutorials/vision_transformers.md, 2021-2025.",
           "GradCAM on the last block's norm1 output, [CLS] dropped, row-major grid, GAP gradient "
           "weights, ReLU after the sum, min-max (eps 1e-7), bilinear to the input size, min-max again.",
           {"method": "gradcam", "weighting": "gap_gradients", "relu": "after_combination", **PGC_BASE},
           PGC_CITE),
    Preset("pytorch-grad-cam-vit-hirescam", "pytorch-grad-cam ViT recipe with HiResCAM",
           "R. L. Draelos and L. Carin, Use HiResCAM instead of Grad-CAM for faithful explanations, arXiv:2011.08891, 2020.",
           "Elementwise gradient x activation summed over channels, then ReLU; otherwise the ViT recipe.",
           {"method": "hirescam", "weighting": "elementwise", "relu": "after_combination", **PGC_BASE},
           ),
    Preset("pytorch-grad-cam-vit-elementwise", "pytorch-grad-cam ViT recipe with GradCAMElementWise",
           "pytorch-grad-cam, grad_cam_elementwise.py (GradCAMElementWise).",
           "ReLU of each gradient x activation product, summed over channels.",
           {"method": "gradcam-elementwise", "weighting": "elementwise",
            "relu": ["on_products", "after_combination"], **PGC_BASE}),
    Preset("pytorch-grad-cam-vit-layercam", "LayerCAM on tokens",
           "P.-T. Jiang et al., LayerCAM: Exploring hierarchical class activation maps for localization, IEEE TIP 30, 2021.",
           "ReLU(gradient) x activation summed over channels, then ReLU; the ViT recipe's tokens and tail.",
           {"method": "layercam", "weighting": "elementwise", "relu": ["on_gradients", "after_combination"],
            **PGC_BASE},
           ),
    Preset("pytorch-grad-cam-vit-xgradcam", "pytorch-grad-cam ViT recipe with XGrad-CAM",
           "R. Fu et al., Axiom-based Grad-CAM: towards accurate visualization and explanation of CNNs, BMVC 2020.",
           "Channel weights sum(G*A)/sum(A); the ViT recipe otherwise.",
           {"method": "xgradcam", "weighting": "xgradcam", "relu": "after_combination", **PGC_BASE},
           ),
    Preset("pytorch-grad-cam-vit-gradcampp", "pytorch-grad-cam ViT recipe with Grad-CAM++",
           "A. Chattopadhay et al., Grad-CAM++: Generalized gradient-based visual explanations for deep convolutional networks, WACV 2018.",
           "Second-order pixel-wise weights of Grad-CAM++; the ViT recipe otherwise.",
           {"method": "gradcam++", "weighting": "gradcam++", "relu": "after_combination", **PGC_BASE},
           ),
    Preset("pytorch-grad-cam-vit-eigencam", "EigenCAM on tokens",
           "M. B. Muhammad and M. Yeasin, Eigen-CAM: Class activation map using principal components, IJCNN 2020.",
           "First principal component of the last block's norm1 tokens; no gradient, no target.",
           {"method": "eigencam", "weighting": "eigen", "relu": "after_combination", "target": "n/a",
            **{k: v for k, v in PGC_BASE.items() if k != "target"}},
           ),
    Preset("chefer2021-attn-gradcam", "Grad-CAM on attention, heads as channels (Chefer et al. 2021 baseline)",
           "H. Chefer, S. Gur, L. Wolf, Transformer interpretability beyond attention visualization, CVPR 2021.",
           "Last-block softmax attention, [CLS] query row over the patch keys, per-head weight = mean "
           "gradient, mean over heads, then ReLU; min-max, bilinear.",
           {"method": "attention-gradcam", "layer": {"block": -1}, "location": "F2",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "gap_gradients", "heads": {"aggregate": "as_channels", "order": "before_relu"},
            "relu": "after_combination", **ATTN_TAIL},
           (r"transformer interpretability beyond attention visuali[sz]ation",)),
    Preset("chefer2021-gae", "Generic attention explainability (gradient-weighted attention rollout)",
           "H. Chefer, S. Gur, L. Wolf, Generic attention-model explainability for interpreting bi-modal and encoder-decoder transformers, ICCV 2021.",
           "Per block mean over heads of ReLU(grad x attention); R <- R + A R from the identity over all "
           "blocks; the [CLS] row over the patches.",
           {"method": "gae", "layer": {"blocks": "all", "combine": "rollout"}, "location": "F2",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "elementwise", "heads": {"aggregate": "mean", "order": "after_relu"},
            "relu": "on_products", **ATTN_TAIL},
           (r"generic attention-?model explainability", r"gradient[- ]weighted attention rollout")),
    Preset("abnar2020-rollout", "Attention rollout (Abnar & Zuidema 2020)",
           "S. Abnar and W. Zuidema, Quantifying attention flow in transformers, ACL 2020.",
           "Mean (or max/min) over heads, optional discard of the weakest entries, 0.5 A + 0.5 I, row "
           "normalised, multiplied over all blocks; the [CLS] row. Not class-specific.",
           {"method": "rollout", "layer": {"blocks": "all", "combine": "rollout"}, "location": "F2",
            "target": "n/a", "tokens": {"drop": ["cls"]}, "weighting": "method_rule",
            "heads": {"aggregate": "mean"}, "relu": "none", **ATTN_TAIL},
           (r"quantifying attention flow",), {"discard_ratio": 0.0, "head_fusion": "mean"}),
    Preset("vitexplain-grad-rollout", "Gradient rollout (jacobgil/vit-explain)",
           "J. Gildenblat, vit-explain: Explainability for Vision Transformers, github.com/jacobgil/vit-explain, 2020.",
           "Per block mean over heads of attention x gradient, negatives set to 0 after the mean, "
           "weakest entries discarded, (A + I)/2 rolled out; the [CLS] row divided by its maximum.",
           {"method": "grad-rollout", "layer": {"blocks": "all", "combine": "rollout"}, "location": "F2",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "elementwise", "heads": {"aggregate": "mean", "order": "before_relu"},
            "relu": "after_combination",
            "reshape": {"grid": "auto", "order": "row_major"},
            "postprocess": {"normalize": "max", "eps": 0.0, "upsample": "bilinear", "size": "input"}},
           (r"\bvit-explain\b",), {"discard_ratio": 0.9}),
    Preset("albef-itc-gradcam", "ALBEF-style attention x ReLU(gradient)",
           "J. Li et al., Align before fuse: Vision and language representation learning with momentum distillation, NeurIPS 2021.",
           "Attention times ReLU of its gradient (ReLU on the gradient only), mean over heads, the "
           "[CLS] query row over the patches of one block.",
           {"method": "attention-gradcam", "layer": {"block": -1}, "location": "F2",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "elementwise", "heads": {"aggregate": "mean", "order": "after_relu"},
            "relu": "on_gradients", "reshape": {"grid": "auto", "order": "row_major"},
            "postprocess": {"normalize": "minmax", "eps": 0.0, "upsample": "bicubic", "size": "input"}},
           (r"align before fuse", r"\balbef (?:convention|recipe|style)")),
    Preset("legrad", "LeGrad (gradient of attention only, layers summed)",
           "W. Bousselham et al., LeGrad: An explainability method for vision transformers via feature formation sensitivity, arXiv:2404.03214, 2024.",
           "ReLU of the attention gradient (attention not multiplied in), mean over heads and query "
           "rows, summed over the last two blocks, min-max.",
           {"method": "other", "layer": {"blocks": [-2, -1], "combine": "sum"}, "location": "F2",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "gradient_only", "heads": {"aggregate": "mean", "order": "after_relu"},
            "relu": "on_gradients", **ATTN_TAIL},
           (r"\blegrad\b", r"feature formation sensitivity")),
    Preset("cdam", "CDAM: signed gradient x input at the tokens entering the last block",
           "L. Brocki and N. C. Chung, Class-discriminative attention maps for vision transformers, arXiv:2312.02364, 2023.",
           "Sum over channels of gradient x token at the input of the final block (F6 of the block "
           "before), signed: no ReLU.",
           {"method": "other", "layer": {"block": -2}, "location": "F6",
            "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
            "weighting": "elementwise", "heads": "n/a", "relu": "none",
            "reshape": {"grid": "auto", "order": "row_major"},
            "postprocess": {"normalize": "max_abs", "upsample": "bilinear", "size": "input"}},
           (r"class-discriminative attention maps",)),
)

BY_NAME: dict[str, Preset] = {p.name: p for p in PRESETS}


def find_preset(name: str) -> Preset | None:
    return BY_NAME.get(str(name).strip().lower())


def presets_cited(texts) -> list[Preset]:
    """Presets whose paper or name appears in any of `texts` (bibliography titles, prose)."""
    return [p for p in PRESETS if any(p.matches(t) for t in texts)]


def preset_name(spec: object):
    """What a camspec writes under `method: {preset: NAME}`, or None."""
    method = spec.get("method") if isinstance(spec, dict) else None
    name = method.get("preset") if isinstance(method, dict) else None
    return name or None


# A followed preset fills the keys a paper leaves missing or only partly reported; `camlint
# verify` fills only missing ones (a partial value the spec states is executed as stated).
OPEN = (MISSING, PARTIAL)


def apply_preset(preset: Preset, values: dict, open_statuses: tuple = OPEN) -> list[str]:
    """The one preset applier: each key the preset fixes that `values` leaves open (its status in
    `open_statuses`) takes the preset's value. Returns the keys it filled."""
    filled = []
    for key, value in preset.fixes.items():
        if _is_open(key, values.get(key), open_statuses):
            values[key] = value
            filled.append(key)
    return filled


def _is_open(key: str, value: object, open_statuses: tuple) -> bool:
    if value is None or is_placeholder(value):
        return MISSING in open_statuses
    # only a partial value is judged: verify reads specs whose values may have the wrong type
    return PARTIAL in open_statuses and status_of(key, value) == PARTIAL


def apply_presets(followed: list[tuple[Preset, Evidence]], values: dict, evidence: dict) -> None:
    """Presets a document follows, in order; each filled key gets the preset as first evidence."""
    for preset, ev in followed:
        for key in apply_preset(preset, values):
            evidence[key] = [ev] + evidence[key]
