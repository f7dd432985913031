"""Does the paper itself apply a CAM method to its transformer, and whose procedure does a
sentence describe (issue 12, classes of writing): small manuscripts of our own, each written for
one class, checked end to end through `camlint check`."""
from __future__ import annotations

from conftest import doc_of, statuses, write_project

PREAMBLE = "\\documentclass{article}\n\\begin{document}\n"


def _doc(tmp_path, body: str, files: dict | None = None) -> dict:
    return doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + body + "\n\\end{document}\n", **(files or {})}))


# ---- uses_cam_on_transformer: negatives ----

def test_a_protocol_planned_in_future_work_is_not_a_use(tmp_path):
    doc = _doc(tmp_path, r"""\section{Method}
We fine-tune a DeiT-B on herbarium sheets and explain it with attention rollout over all blocks.
\section{Outlook and limitations}
Rollout is not class-specific. Our envisaged procedure is Grad-CAM at the eleventh block of the
DeiT-B with the class token removed and a 14x14 grid, which we have not run so far.
\section{Future directions}
A later version will compare LayerCAM maps of the DeiT-B with the rollout maps shown here.
""")
    assert doc["uses_cam_on_transformer"] is False
    assert set(statuses(doc).values()) == {"not_applicable"}


def test_a_review_that_counts_other_studies_does_not_use_cam(tmp_path):
    doc = _doc(tmp_path, r"""\title{Heatmaps of Vision Transformers in Pathology: a Scoping Review}
\maketitle
\section{Methods}
Two databases were queried with the strings "Grad-CAM", "LayerCAM" and "vision transformer".
\section{Findings}
Of the 54 included articles, 30 used a ViT-B/16 and 12 a Swin-T.
Grad-CAM was applied in 41 of the included articles and Score-CAM in 5.
Most papers computed Grad-CAM at the last block of the ViT and removed the class token.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_an_introduction_that_only_describes_the_field_is_not_a_use(tmp_path):
    doc = _doc(tmp_path, r"""\section{Introduction}
Gradient maps such as Grad-CAM and HiResCAM are the usual tools for image classifiers.
HiResCAM requires a scalar score to differentiate, which a steering regressor lacks.
\section{Approach}
A Swin-S steering policy is probed by masking 24-pixel squares of the camera image and
recording the change of the predicted angle. No gradients are taken.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_positive_paper_with_a_future_work_section_still_counts(tmp_path):
    doc = _doc(tmp_path, r"""\section{Explanations}
We compute Grad-CAM maps of our ViT-S/16 at the output of the last block.
\section{Future work}
We plan to add LayerCAM maps in a later version.
""")
    assert doc["uses_cam_on_transformer"] is True


# ---- own procedure versus others': reviewers' comments, lists, appendices ----

def test_reviewer_comments_quoted_in_a_response_letter_state_no_setting(tmp_path):
    doc = _doc(tmp_path, r"""\section*{Referee 2}
2.4 The maps in the supplementary figure seem to come from the attention matrices of the third
layer, averaged over heads. Please confirm.

We apologise for the unclear wording: the maps are Grad-CAM maps of our ViT-B/16 taken at the
output of the last block.
""")
    assert doc["uses_cam_on_transformer"] is True
    cl = doc["checklist"]
    assert cl["location"]["value"] == "F6", cl["location"]
    assert cl["heads"]["status"] == "not_applicable", cl["heads"]


def test_every_item_of_a_list_about_the_maps_is_in_scope(tmp_path):
    doc = _doc(tmp_path, r"""\section{Revisions}
The revised text now gives every setting of our heatmaps:
\begin{itemize}
\item The network is a ViT-S/16 from the timm release vit_small_patch16_224.augreg_in21k.
\item Heatmaps are produced with Grad-CAM.
\item Activations are read at the output of block 10 of 12.
\item The 196 patch tokens are laid out as a 14x14 grid in raster order.
\end{itemize}

A further paragraph discusses the training schedule of the classifier.

A second further paragraph describes the data.

A third further paragraph describes the labels.

A fourth further paragraph describes the splits.
""")
    cl = doc["checklist"]
    assert cl["layer"]["status"] == "reported", cl["layer"]
    assert cl["reshape"]["status"] == "reported", cl["reshape"]


def test_a_long_pointer_to_the_appendix_brings_its_settings_into_scope(tmp_path):
    body = r"""\section{Method}
We explain our ViT-B/16 with Grad-CAM. The complete list of settings (block, position in the
block, score, special tokens, grid layout, rescaling, library version) appears in
Appendix~\ref{app:a}.
\section{Results}
The maps are compact.
\appendix
\section{Reproduction}\label{app:a}
\paragraph{Block.} We read block 11.
\paragraph{Position.} Within it we take the output of the attention sub-layer.
\paragraph{Score.} The pre-softmax logit of the predicted class is differentiated.
\paragraph{Grid.} The 196 tokens form a 14x14 grid in row-major order.
"""
    cl = _doc(tmp_path, body)["checklist"]
    assert cl["layer"]["status"] == "reported", cl["layer"]
    assert cl["location"]["status"] == "reported", cl["location"]


# ---- uses_cam_on_transformer: positives and CNNs with transformer-like names ----

def test_a_cnn_described_by_the_transformer_design_it_follows_is_a_cnn(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
Our grader is a ConvNeXt-S, a purely convolutional network modernised toward the design of vision
transformers. We compute Grad-CAM maps at its last stage.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_hierarchical_transformer_named_as_one_word_is_a_transformer(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
Our grader is a MaxViT-S fine-tuned on fundus photographs. Grad-CAM maps are computed at the
output of its final stage and upsampled bilinearly.
""")
    assert doc["uses_cam_on_transformer"] is True


# ---- not applicable, inferred ----

def test_hierarchical_transformers_have_no_class_token_unless_the_paper_speaks_of_one(tmp_path):
    silent = _doc(tmp_path / "a", r"""\section{Model}
We fine-tune the timm model pvt_v2_b1.in1k on wafer images and compute LayerCAM maps at the
output of its last stage.
""")
    assert silent["checklist"]["tokens"]["status"] == "not_applicable", silent["checklist"]["tokens"]
    plain = _doc(tmp_path / "b", r"""\section{Model}
We fine-tune a ViT-S/16 on wafer images and compute LayerCAM maps at the output of its last block.
""")
    assert plain["checklist"]["tokens"]["status"] == "missing", plain["checklist"]["tokens"]


# ---- section scope: the section tree and run-in headings ----

def test_sections_of_a_thesis_chapter_are_siblings_under_the_chapter(tmp_path):
    body = r"""\chapter{Making the detector explain itself}
This chapter describes how the saliency maps of the detector are produced.
\section{Choice of CAM variant}
We use LayerCAM on our ViT-S/16 throughout.
\section{Where the maps come from}
One paragraph describes the checkpoint.

Another describes the crops.

A third describes the cohort.

A fourth describes the labels.

The activations are read at the output of block 9.
\chapter{Clinical study}
\section{Where the maps come from}
Block 3 is where the clinicians started reading.
"""
    main = write_project(tmp_path, {"main.tex": "\\documentclass{report}\n\\begin{document}\n" + body
                                    + "\\end{document}\n"})
    layer = doc_of(main)["checklist"]["layer"]
    assert layer["status"] == "reported" and layer["value"] == {"block": 9}, layer


def test_run_in_headings_about_ingredients_title_their_paragraphs(tmp_path):
    doc = _doc(tmp_path, r"""\section{Grounding the answers}
We ground each answer with Grad-CAM on our ViT-B/16.

The questions come from a public benchmark.

Each question has one image.

The answers are short.

\paragraph{Chosen block.} A sweep preferred the tenth block (counting from one), used everywhere.

\paragraph{Data split.} Block 3 of the building held the annotators.
""")
    layer = doc["checklist"]["layer"]
    assert layer["status"] == "reported" and layer["value"] == {"block": 9}, layer


def test_sentences_that_continue_a_cnn_baseline_sentence_are_the_baselines(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
We apply Grad-CAM to our DeiT-S and differentiate the logit of the predicted class.

As a reference, an EfficientNet-B0 is explained with Grad-CAM on its final convolutional layer.
Its gradients are averaged over the 7x7 positions and the map is upsampled bicubically.
They are then scaled by their maximum.
""")
    cl = doc["checklist"]
    assert cl["target"]["status"] == "reported", cl["target"]
    for key in ("reshape", "weighting", "postprocess"):
        assert cl[key]["status"] == "missing", (key, cl[key])


def test_video_audio_and_multimodal_transformers_are_transformers(tmp_path):
    papers = {
        "video": "Our gesture recogniser is a spatio-temporal transformer over 8-frame clips; we compute "
                 "Grad-CAM maps of its final block for each frame.",
        "audio": "Calls are classified by a Whisper-base encoder fine-tuned on our recordings, and "
                 "Score-CAM maps over its frame tokens show the syllables it relies on.",
        "multimodal": "We query LLaVA-1.5 about each chart and compute Grad-CAM maps of the answer logit "
                      "with respect to the vision tower output.",
    }
    for name, sentence in papers.items():
        doc = _doc(tmp_path / name, "\\section{Method}\n" + sentence + "\n")
        assert doc["uses_cam_on_transformer"] is True, name


def test_a_comparison_table_is_read_in_its_own_column_only(tmp_path):
    doc = _doc(tmp_path, r"""\section{Map settings}
Our DeiT-B is explained with HiResCAM; the table sets our choices beside the original release.
\begin{table}\caption{HiResCAM settings.}
\begin{tabular}{lll}
Choice & Original release~\cite{orig} & This work \\
Block & the 6th block & the 10th block \\
Grid & 7x7 & 14x14 \\
\end{tabular}\end{table}
""")
    cl = doc["checklist"]
    assert cl["layer"]["value"] == {"block": 9}, cl["layer"]
    assert cl["reshape"]["value"].get("grid") == [14, 14], cl["reshape"]


_FILLER = "\n\nThe optimiser is SGD.\n\nTraining lasts 40 epochs.\n\nFlips augment the data.\n\nThe split is 80/20.\n"


def test_a_table_of_the_explanation_settings_is_in_scope_wherever_it_floats(tmp_path):
    doc = _doc(tmp_path, r"""\section{Method}
We explain our ViT-S/16 seedling classifier with XGrad-CAM (see Table~\ref{tab:x}).""" + _FILLER + r"""
\section{Experiments}
\begin{table}\caption{Saliency configuration used for every figure.}\label{tab:x}
\begin{tabular}{ll}
Block & block 9 \\
Score & pre-softmax logit of the predicted class \\
\end{tabular}\end{table}
The seedlings are photographed from above.
""")
    cl = doc["checklist"]
    assert cl["layer"]["status"] == "reported", cl["layer"]
    assert cl["target"]["status"] == "reported", cl["target"]


def test_a_supplement_the_cam_text_points_to_inherits_the_scope(tmp_path):
    doc = _doc(tmp_path, r"""\section{Method}
We explain our ViT-S/16 seedling classifier with XGrad-CAM; every parameter of the maps is given in
the supplementary material.""" + _FILLER + r"""
\section{Supplementary material}
\subsection{Parameters}
Block 9 is read, and the pre-softmax logit of the predicted class is differentiated.
""")
    cl = doc["checklist"]
    assert cl["layer"]["status"] == "reported", cl["layer"]
    assert cl["target"]["status"] == "reported", cl["target"]


def test_the_steps_of_an_enumerated_procedure_are_steps_of_the_map(tmp_path):
    doc = _doc(tmp_path, r"""\section{Explanation procedure}
Our ViT-B/16 is explained with Grad-CAM in three steps:
\begin{enumerate}
\item read the activations of block 11 and their gradients;
\item sum the products over channels and keep the positive part;
\item min-max normalise per image and resize bilinearly to the input size.
\end{enumerate}
""")
    post = doc["checklist"]["postprocess"]
    assert post["status"] == "reported" and post["value"] == {"normalize": "minmax", "upsample": "bilinear"}, post


def test_a_method_named_only_in_parentheses_a_caption_a_table_or_an_algorithm_is_used(tmp_path):
    model = "\\section{Model}\nWe fine-tune a ViT-S/16 on sonar images.\n\\section{Results}\n"
    papers = {
        "parentheses": "Class-specific maps (LayerCAM) of the ViT-S/16 mark the hull.",
        "caption": "\\begin{figure}\\caption{HiResCAM maps of the ViT-S/16 for four wrecks.}\\end{figure}",
        "table": "\\begin{table}\\caption{Pointing accuracy.}\\begin{tabular}{lc}\nMaps & Accuracy \\\\\n"
                 "Score-CAM (ours) & 0.66 \\\\\n\\end{tabular}\\end{table}",
        "algorithm": "\\begin{algorithm}\\caption{Map of one sonar image}\n1: forward the ViT-S/16 \\\\\n"
                     "2: XGrad-CAM weights from the gradients of block 10 \\\\\n\\end{algorithm}",
        "adaptation": "We visualise the ViT-S/16 with gradient-weighted attention of its last layer.",
    }
    for name, text in papers.items():
        assert _doc(tmp_path / name, model + text + "\n")["uses_cam_on_transformer"] is True, name


def test_in_a_review_only_what_the_authors_say_they_did_is_a_use(tmp_path):
    review = r"""\title{Explaining Remote-Sensing Transformers: a Review}
\maketitle
\section{Common configurations}
Grad-CAM at the last block of a ViT-B/16, with the class token removed, is the most frequent setting.
"""
    assert _doc(tmp_path / "a", review)["uses_cam_on_transformer"] is False
    assert _doc(tmp_path / "b", review + "To illustrate, we computed Grad-CAM maps of our own ViT-B/16.\n"
                )["uses_cam_on_transformer"] is True


def test_a_method_cited_by_name_as_the_subject_of_its_sentence_is_still_applied(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
Our classifier is a BEiT-B fine-tuned on pollen micrographs.
LayerCAM~\cite{layercam} is computed at the output of its last block for every test image.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_package_named_after_the_method_explains_no_transformer(tmp_path):
    # the CNN baseline's library ("pytorch-grad-cam") is not Grad-CAM applied to the transformer,
    # and the summary's comparison of the two explainers binds nothing either
    doc = _doc(tmp_path, r"""\section{Method}
Our classifier is a DeiT-S fine-tuned on the sorting-line images.
The transformer is explained by attention rollout averaged over heads.
For the EfficientNet-B0 baseline we compute Grad-CAM on its last stage
(with the pytorch-grad-cam package, version 1.5.0).
\section{Conclusion}
Rollout and Grad-CAM are not directly comparable, yet both show that the transformer
looks at the label region.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_a_method_said_not_to_be_computed_is_not_applied(tmp_path):
    doc = _doc(tmp_path, r"""\section{Method}
We fine-tune a ViT-S/16 on the leaf scans.
Maps come from occlusion with a 16-pixel grey square; Grad-CAM was not computed.
We did not use class activation maps for the transformer at all.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_gradcam_named_in_the_conclusion_still_counts_when_it_is_the_only_mention(tmp_path):
    doc = _doc(tmp_path, r"""\section{Method}
We fine-tune a ViT-B/16 on the crops and explain it at the last block's norm1.
\section{Conclusion}
Our Grad-CAM maps of the ViT-B/16 follow the annotated lesions closely.
""")
    assert doc["uses_cam_on_transformer"] is True
