"""CAM-on-transformer detection from evidence beyond the method's name (issue 12): a mention
under a negation is not a use; a method named without a model is applied to the kind of model
its section describes (tokens and blocks, or convolutional layers);
a method named only in the abstract is discussed, not applied. Manuscripts written for the tests."""
from __future__ import annotations

import pytest

from conftest import lint_tex, statuses


@pytest.mark.parametrize("sentence", [
    "No Grad-CAM is computed for the ViT; it is explained with attention rollout only.",
    "Why not Grad-CAM? It presupposes a supervised head, which our self-supervised model does not have.",
    "Grad-CAM is not defined for a token sequence without choices we preferred not to make.",
    "I had originally intended to use Grad-CAM, but the perturbation curves turned out to be more robust.",
])
def test_a_negated_or_abandoned_method_is_not_applied(tmp_path, sentence):
    doc = lint_tex(tmp_path, r"""\section{Method}
We fine-tune a ViT-S/16 on sediment cores and measure the accuracy drop when patches are masked.
""" + sentence + "\n")
    assert doc["uses_cam_on_transformer"] is False
    assert set(statuses(doc).values()) == {"not_applicable"}


def test_a_method_named_without_a_model_takes_the_model_its_section_describes(tmp_path):
    """The baseline CNN sits next to the name in one section; the heatmap section speaks only of
    the class token and the LayerNorm before attention: the map is the transformer's."""
    doc = lint_tex(tmp_path, r"""\section{Models}
The classifier is a DeiT-S. For the EfficientNet-B0 reference, Grad-CAM is taken at its final convolution.
\section{Heatmaps}
Inspectors receive a Grad-CAM overlay with every rejected casting.
The maps come from the LayerNorm before attention in the last of the twelve blocks, after the class token is dropped.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["tokens"]["status"] == "reported"


def test_convolutional_stage_blocks_are_not_transformer_anatomy(tmp_path):
    """`stages[3].blocks[-1]` is a ConvNeXt-style CNN's module path, not a ViT block."""
    doc = lint_tex(tmp_path, r"""\section{Network}
We train a compact convolutional network for leaf spots, called SpotNet here.
\section{Explanations}
We apply Grad-CAM to the output of stages[3].blocks[-1] of SpotNet, a 7x7x512 map.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_method_named_only_in_the_abstract_is_discussed_not_applied(tmp_path):
    doc = lint_tex(tmp_path, r"""\begin{abstract}
Masking patches of a ViT-B/16 avoids the known ambiguities of Grad-CAM on transformers.
\end{abstract}
\section{Method}
We mask 10\% of the patches of the ViT-B/16 at a time and record the drop of the class logit.
\section{Results}
The drop curves separate the three tumour grades.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_detection_transformer_is_a_transformer(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Method}
We explain a Deformable DETR trained on drone footage with gradient-weighted cross-attention of the last decoder layer.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_cnn_named_only_as_the_comparator_does_not_outweigh_the_papers_own_use(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Network}
A vision transformer based classifier is trained for rail surface defects.
\section{Heatmap computation}
Grad-CAM computes the weight of each channel by global average pooling of the gradient.
The resulting maps of the transformer are overlaid on the rail images.
For comparison, the ResNet-50 Grad-CAM uses the layer4 output.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_the_abstract_says_what_the_papers_own_method_explains_when_the_body_only_compares(tmp_path):
    doc = lint_tex(tmp_path, r"""\begin{abstract}
We explain a DeiT-B with a class activation map whose channel weights come from forward passes only.
\end{abstract}
\section{Experiments}
We compare with Grad-CAM on a ResNet-50 and with attention rollout: ours 0.61, Grad-CAM 0.47.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_results_row_with_a_typed_reference_is_another_papers(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Dataset}
We release 4,000 annotated photographs of rice weeds with boxes.
\section{Benchmark context}
\begin{tabular}{lll}
Method & Source & Pointing \\
ViT-B/16 + Grad-CAM & [21] & 47.8 \\
ResNet-50 + CAM & [12] & 41.3 \\
\end{tabular}
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_method_section_that_describes_the_map_without_naming_it_is_read(tmp_path):
    """The variant is named nowhere in the paper's own sections; its method section states the
    settings of a map built from the transformer's tokens: that section is the CAM scope."""
    doc = lint_tex(tmp_path, r"""\begin{abstract}
We explain a DeiT-B with a class activation map whose channel weights come from forward passes only.
\end{abstract}
\section{Method}
\paragraph{Feature map.} We take the output of the last block. The class token is discarded and the
196 patch tokens form a $14\times14$ map $A$.
\section{Experiments}
We compare with Grad-CAM on a ResNet-50: ours 0.61, Grad-CAM 0.47.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["tokens"]["status"] == "reported"
    assert doc["checklist"]["reshape"]["status"] == "reported"


@pytest.mark.parametrize("baseline", [
    "The GCNN baseline is explained with Grad-CAM on its final graph convolution.",
    "Grad-CAM maps are computed for the C3D network at its last pooling layer.",
    "For reference, an X3D-S is explained with Grad-CAM at its last stage.",
])
def test_grad_cam_on_a_graph_or_video_cnn_baseline_is_not_applied_to_the_transformer(tmp_path, baseline):
    """The transformer is explained by another method; Grad-CAM only explains a convolutional
    baseline named by its family (a graph CNN, a 3D video CNN), not a known image CNN."""
    doc = lint_tex(tmp_path, r"""\section{Models}
Our spatio-temporal transformer has 12 blocks and a [CLS] token.
""" + baseline + r"""
\section{Occlusion for the transformer}
We remove one group of tokens at a time and record the drop of the class logit.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_the_cnn_formulation_of_a_method_is_not_a_cnn_it_is_applied_to(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Toolkit}
Our toolkit wraps a DINO ViT-S/8 classifier for shelf images.
\section{Semantics}
We compute Grad-CAM following the CNN formulation: gradients are averaged over the patch tokens.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_the_paper_transformer_under_a_participle_is_a_transformer(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Explanations}
We ran Grad-CAM on the fine-tuned transformer to see which bark regions mattered.
\section{Results}
Accuracy was 88\%, against 80\% for an EfficientNet-B0 trained on the same tiles.
Grad-CAM maps showed that the model attends to the lichen patches.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_each_method_is_bound_on_its_own(tmp_path):
    """A retained CNN's Grad-CAM says nothing of the HiResCAM that the paper's own saliency
    section describes without naming the model: that one explains the transformer."""
    doc = lint_tex(tmp_path, r"""\section{System}
The inspection model is a Swin-S fine-tuned on weld radiographs.
An older VGG-16 is retained for audits, with Grad-CAM maps from its last convolutional layer.
\section{Saliency}
\begin{itemize}
\item Method: HiResCAM, the gradient times the activation, summed over channels.
\item Layer: the last block of the final stage.
\end{itemize}
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_cnn_papers_second_method_compared_on_the_same_cnn_stays_the_cnns(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Introduction}
Transformers such as DeiT-S are popular, but in this study no transformer was trained.
\section{Methods}
We classify otoscopy images with a DenseNet-121. Score-CAM was applied to its last dense block.
For comparison, Grad-CAM maps were computed at the same layer.
\section{Results}
\begin{tabular}{ll}
Score-CAM & 0.61 \\
Grad-CAM & 0.48 \\
\end{tabular}
""")
    assert doc["uses_cam_on_transformer"] is False


def test_the_family_name_stands_for_the_method_the_paper_names(tmp_path):
    """"Class activation maps" titles the section whose Grad-CAM explains the CNN: the family's
    name is not a second method left unbound."""
    doc = lint_tex(tmp_path, r"""\section{Model}
We classify roof tiles with a ConvNeXt-T. A ViT-S/16 was tried but is not explained.
\section{Class activation maps}
We computed Grad-CAM at the last convolutional stage of the ConvNeXt-T.
The ViT-S/16 is only scored for accuracy, on the same split.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_an_essay_in_the_singular_voice_discusses_the_method_in_the_fields_we(tmp_path):
    """A single author who argues as "I": the conclusion's "we" is everyone's, and the method
    named there is discussed, not applied."""
    doc = lint_tex(tmp_path, r"""\begin{abstract}
I contend that saliency claims about Vision Transformers are underspecified.
\end{abstract}
\section{Two readings}
I distinguish two readings of a heatmap, and here I defend the second one.
A reading is a claim about the model, not about the picture.
\section{Conclusion}
Whether Grad-CAM is trustworthy for ViTs is open until we agree on which Grad-CAM is meant.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_single_authors_i_in_the_abstract_is_the_own_voice(tmp_path):
    doc = lint_tex(tmp_path, r"""\begin{abstract}
In this thesis I explain a fine-tuned ViT-B/16 for moth species with Grad-CAM.
\end{abstract}
\section{Method}
I fine-tuned the network for 20 epochs. The maps are taken at the last block, without the class token.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_methods_long_name_is_the_same_method(tmp_path):
    """Grad-CAM spelled out is not a second method left unbound beside the CNN's Grad-CAM."""
    doc = lint_tex(tmp_path, r"""\section{Model}
We classify welding seams with a ResNet-34; a DeiT-T was trained too but is not explained.
\section{Explanation}
We use gradient-weighted class activation mapping to show the evidence for each defect.
Grad-CAM is computed at layer4 of the ResNet-34, as the DeiT-T is not explained.
""")
    assert doc["uses_cam_on_transformer"] is False


ESSAY = r"""\title{Saliency Without a Referent: Notes on Explaining Vision Transformers}
\maketitle
\section{On what a caption refers to}
I want to ask what it means when a caption says that Grad-CAM highlights the tumour.
Such a caption presupposes that Grad-CAM names one procedure, yet for a ViT the gradient can be
read at the class token or at the patch tokens, before or after the LayerNorm of the last block.
I will argue that the name hides at least a dozen procedures.
\section{Two readings of faithfulness}
I distinguish a causal reading from a descriptive one; neither is settled by a figure.
%s
\section{Conclusion}
Whether Grad-CAM is faithful for vision transformers cannot be asked until we say which Grad-CAM.
"""


def test_an_essay_that_discusses_the_method_applies_nothing(tmp_path):
    """A paper of argument (titled sections, none a method, experiments or appendix section):
    the method is discussed in the general voice, never applied by the author."""
    doc = lint_tex(tmp_path, ESSAY % "")
    assert doc["uses_cam_on_transformer"] is False


def test_an_essay_whose_author_applies_the_method_uses_it(tmp_path):
    doc = lint_tex(tmp_path, ESSAY % "To make the point concrete I computed Grad-CAM on a DeiT-S/16 "
                                     "for the figure below, dropping the class token.")
    assert doc["uses_cam_on_transformer"] is True
