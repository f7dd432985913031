"""CAM4xx: citation and justification (the audit's main findings)."""
from __future__ import annotations

from camlint.core.keys import REPORTED
from camlint.extract.vocab import vocabulary
from camlint.core.wording import low
from camlint.rules import completeness
from camlint.rules.base import Hit, Rule


def _cnn_cam_paper(key: str, title: str) -> bool:
    """The original CNN paper (Selvaraju et al.) or a CNN paper of a variant, by title or key
    (the phrases are in vocabulary.yaml: cnn_cam_paper, cnn_cam_key)."""
    v = vocabulary()
    return bool(v.phrases["cnn_cam_paper"].search(low(title)) or v.phrases["cnn_cam_key"].search(low(key)))


ADAPTATION_KEYS = ("location", "tokens", "reshape")


def _cited(a) -> tuple[list[str], list[str]]:
    """(CNN CAM papers cited, other citations) in the sentences about the paper's own CAM."""
    if a.prose is None:
        return [], []
    bib = a.prose.bibliography
    cnn, other = [], []
    for s in a.prose.sentences:
        if not a.prose.scope.in_scope(s) and not (s.section.role == "abstract"):
            continue
        for key in s.cites():
            text = bib.get(key, "")
            (cnn if _cnn_cam_paper(key, text) else other).append(key)
    return cnn, other


def _adaptation_described(a) -> bool:
    return any(a.statuses.get(k) == REPORTED for k in ADAPTATION_KEYS) or bool(a.prose and a.prose.presets)


def check_cites_only_cnn_gradcam(a):
    if not a.uses_cam or a.prose is None:
        return
    cnn, _ = _cited(a)
    all_cnn = [k for k, t in a.prose.bibliography.items() if _cnn_cam_paper(k, t)]
    if not (cnn or all_cnn) or _adaptation_described(a):
        return
    file, line, col = a.anchor
    keys = ", ".join(dict.fromkeys(cnn or all_cnn))
    yield Hit(f"Grad-CAM on a transformer is justified only by the CNN paper ({keys}); no "
              "adaptation to the token sequence is described or cited", file, line, col)


CITES_ONLY_CNN_GRADCAM = Rule(
    code="CAM401", name="cites-only-cnn-gradcam", item="method", severity="warning",
    summary="Uses CAM on a ViT, cites only the CNN Grad-CAM paper, and describes no adaptation.",
    rationale="58% of the audited papers do this. The CNN paper defines Grad-CAM on a spatial "
              "feature map; it says nothing about which token activations, [CLS] handling or grid "
              "a transformer needs, so the citation specifies none of them.",
    bad="We visualise Grad-CAM~\\cite{selvaraju2017grad} heatmaps of our ViT.\n"
        "\\begin{thebibliography}{1}\\bibitem{selvaraju2017grad} R. R. Selvaraju et al. Grad-CAM: "
        "Visual explanations from deep networks via gradient-based localization. ICCV 2017.\\end{thebibliography}",
    good="We visualise Grad-CAM~\\cite{selvaraju2017grad} heatmaps of our ViT at the norm1 output of "
         "the last block; the [CLS] token is dropped and the 196 patch tokens form a $14\\times14$ grid.\n"
         "\\begin{thebibliography}{1}\\bibitem{selvaraju2017grad} R. R. Selvaraju et al. Grad-CAM: "
         "Visual explanations from deep networks via gradient-based localization. ICCV 2017.\\end{thebibliography}",
    hint="Describe the adaptation (location, [CLS] handling, grid) or cite a paper that defines one "
         "(e.g. Chefer et al. 2021 for gradient-weighted attention).",
    check=check_cites_only_cnn_gradcam,
)


def check_code_pointer_only(a):
    if not a.uses_cam or _adaptation_described(a):
        return
    impl = a.values.get("implementation")
    if isinstance(impl, dict) and impl.get("library"):
        if any(a.statuses.get(k) == REPORTED for k in ("layer",)):
            return
        file, line, col = a.where("implementation")
        yield Hit(f"the maps are attributed to {impl['library']} but nothing says what it was set up to "
                  "do for a transformer (layer, location, tokens, grid)", file, line, col)


CODE_POINTER_ONLY = Rule(
    code="CAM402", name="code-pointer-only", item="implementation", severity="warning",
    summary="The paper points to a CAM library or repository without saying what it does for transformers.",
    rationale="10% of the audited papers only name pytorch-grad-cam. The library has no ViT code "
              "path: the user supplies the target layer and the reshape, so the choices are the "
              "paper's, not the library's.",
    bad="Heatmaps were obtained with Grad-CAM as implemented in the pytorch-grad-cam library.",
    good="Heatmaps were obtained with pytorch-grad-cam 1.5.4 on \\texttt{blocks[-1].norm1} of our "
         "ViT-B/16, dropping the [CLS] token and reshaping to $14\\times14$.",
    hint="Say which module was hooked, how tokens were reshaped and which target was used.",
    check=check_code_pointer_only,
)


def check_library_without_version(a):
    impl = a.values.get("implementation")
    if not (a.uses_cam and isinstance(impl, dict) and impl.get("library")):
        return
    if impl.get("version") or impl.get("commit"):
        return
    file, line, col = a.where("implementation")
    yield Hit(f"{impl['library']} is named without a version or commit", file, line, col)


LIBRARY_WITHOUT_VERSION = Rule(
    code="CAM403", name="library-without-version", item="implementation", severity="warning",
    summary="A library is named without its version (or the code without a commit or tag).",
    rationale="Defaults change between releases (targets, normalisation, reshape helpers); the "
              "same call can give different maps in two versions.",
    bad="Maps are computed with the pytorch-grad-cam library.",
    good="Maps are computed with pytorch-grad-cam 1.5.4.",
    hint="Give the version (pip freeze), or the commit or tag of the code used.",
    check=check_library_without_version,
    # a library without its version: this rule says which slot is open
    supersedes=tuple(r for r in completeness.RULES if r.item == "implementation"),
)

RULES = (CITES_ONLY_CNN_GRADCAM, CODE_POINTER_ONLY, LIBRARY_WITHOUT_VERSION)
