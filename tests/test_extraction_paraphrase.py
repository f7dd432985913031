"""Paraphrase harness (issue 12): one setting sentence, written in many voices, inserted into a
minimal CAM-on-ViT manuscript; the item must get the status (and value) the corpus README's
status rules demand. Each key has paraphrases that state the setting (clinical, humanities,
terse, non-native English, math only, module paths, \\texttt identifiers, table rows, footnotes,
user macros, numbers in words, passive voice, first person singular, negations, two sentences)
and sentences that must not count (a cited method, a CNN baseline, related work, future work,
a hypothetical). The paraphrases are our own; none is taken from a corpus."""
from __future__ import annotations

import pytest

from conftest import doc_of, write_project

METHOD_SENTENCE = {
    "method": "We explain its predictions with class activation maps.",
    "heads": "We explain its predictions with Grad-CAM applied to the softmax attention matrices "
             "of the last block.",
}


def manuscript(key: str, inserted: str) -> str:
    method = METHOD_SENTENCE.get(key, "We explain its predictions with Grad-CAM.")
    return (
        "\\documentclass{article}\n"
        "\\title{Where does the transformer look? Saliency maps for leaf disease}\n"
        "\\begin{document}\n\\maketitle\n"
        "\\section{Method}\n"
        "We fine-tune a ViT-B/16 on 4,000 leaf photographs. " + method + "\n"
        + inserted + "\n"
        "\\section{Results}\nThe maps highlight lesions on most leaves.\n"
        "\\end{document}\n")


def table(*rows: str) -> str:
    body = "".join(f"{r} \\\\\n" for r in rows)
    return ("\\begin{table}[h]\\caption{Settings of the saliency maps.}\n"
            "\\begin{tabular}{ll}\n" + body + "\\end{tabular}\\end{table}")


# (sentence, expected status, expected value or None (value not checked)); dict values are
# compared slot by slot. "Baseline" statuses of the skeleton: model partial (a ViT-B/16 with no
# weights), method partial under METHOD_SENTENCE["method"], every other key missing.
REPORTED = {
    "model": [
        ("Weights were initialised from the timm checkpoint vit\\_base\\_patch16\\_224.augreg\\_in21k\\_ft\\_in1k.", None),
        ("The backbone is \\texttt{google/vit-base-patch16-224} from the Hugging Face hub, fine-tuned on our photographs.", None),
        ("We start from the official DINO ViT-B/16 weights released by Meta and fine-tune them.", None),
        (table("Backbone & vit\\_base\\_patch16\\_224.augreg2\\_in21k\\_ft\\_in1k"), None),
        ("As initialisation serves the publicly released DeiT-B checkpoint of Facebook (\\texttt{deit\\_base\\_patch16\\_224.fb\\_in1k}).", None),
        ("We fine-tune the network\\footnote{Initial weights: the hub model google/vit-base-patch16-224-in21k.} for ten epochs.", None),
        ("\\newcommand{\\ckpt}{\\texttt{vit\\_base\\_patch16\\_224.augreg\\_in21k}}The classifier starts from \\ckpt{} and is fine-tuned.", None),
        ("The encoder was initialised with the OpenAI CLIP ViT-B/16 image tower and then fine-tuned on the photographs.", None),
        ("Pretraining: ImageNet-21k, followed by ImageNet-1k fine-tuning (AugReg release).", None),
    ],
    "method": [
        ("Concretely, the maps are computed with Grad-CAM++ [cite].", "gradcam++"),
        ("We use HiResCAM, which multiplies gradients and activations element by element.", "hirescam"),
        ("The variant is LayerCAM.", "layercam"),
        (table("Explanation method & XGrad-CAM"), "xgradcam"),
        ("I apply Score-CAM to the transformer.", "scorecam"),
        ("We have employed the Grad-CAM of Selvaraju et al. [cite] on the transformer.", "gradcam"),
        ("\\newcommand{\\gcam}{Grad-CAM\\xspace}The maps are produced by \\gcam on the last block.", "gradcam"),
        ("The attribution method is EigenCAM, which needs no gradient.", "eigencam"),
        ("We compute gradient-weighted attention maps [cite].", "attention-gradcam"),
        ("Maps come from \\texttt{GradCAMPlusPlus} of the pytorch-grad-cam package.", "gradcam++"),
    ],
    "layer": [
        ("The map is read from the eleventh block.", {"block": 10}),
        ("We hook \\texttt{model.blocks[-1]}.", {"block": -1}),
        ("Target layer: \\texttt{vit.encoder.layer.11}.", {"block": 11}),
        (table("Layer & last of the 12 transformer blocks"), {"block": -1}),
        ("Activations come from the penultimate block ($l = L-1$).", {"block": -2}),
        ("As target layer serves the last Transformer-Block.", {"block": -1}),
        ("The layer chosen is the final encoder block, just before the classification head.", {"block": -1}),
        ("Blocks nine to twelve, counted from one, are averaged.", None),
        ("The maps were taken at block 10 (zero-based).", {"block": 10}),
    ],
    "location": [
        ("The hooked module is \\texttt{blocks[-1].norm1}.", "F1"),
        ("Activations are read at \\texttt{vit.encoder.layer[-1].layernorm\\_before}.", "F1"),
        ("We take the normalised tokens entering the self-attention of the last block.", "F1"),
        ("Feature map: output of the MLP of the last block.", "F5"),
        ("The map is computed on the residual stream after the last block.", "F6"),
        ("The features are taken at the exit of the attention sub-layer, after the output projection.", "F3b"),
        ("Hook point: \\texttt{attention.output} of the last layer.", "F3b"),
        ("We use the softmax attention probabilities $\\mathrm{softmax}(QK^\\top/\\sqrt{d})$ of the last block as the feature map.", "F2"),
        ("The hidden state of the final layer serves as activation map.", "F6"),
        ("The activations are those of \\texttt{layernorm\\_after} in the last encoder layer.", "F4"),
        (table("Hooked module & norm1 of the last block"), "F1"),
    ],
    "target": [
        ("We backpropagate the pre-softmax score of the predicted class.", {"kind": "logit", "class": "predicted"}),
        ("The explained scalar is $y^c$, the logit of the ground-truth class $c$.", {"kind": "logit", "class": "ground_truth"}),
        ("Gradients are taken of the softmax probability of the predicted class.", {"kind": "softmax", "class": "predicted"}),
        (table("Target & raw logit of the predicted class"), {"kind": "logit", "class": "predicted"}),
        ("The derivatives $\\partial y^c / \\partial A$ use $y^c$, the unnormalised score of the class the network predicts.", {"kind": "logit", "class": "predicted"}),
        ("Gradient is computed w.r.t. the output logit of the class predicted by the classifier.", {"kind": "logit", "class": "predicted"}),
        ("I differentiate the class probability of the annotated label.", {"kind": "softmax", "class": "ground_truth"}),
        ("We differentiate the logit before the softmax. The class explained is always the ground-truth class.", {"kind": "logit", "class": "ground_truth"}),
        ("For each leaf, the map explains the disease predicted by the model, through its logit.", {"kind": "logit", "class": "predicted"}),
    ],
    "tokens": [
        ("The [CLS] token is discarded before reshaping.", {"drop": ["cls"]}),
        ("We did not discard the class token; it is kept and its row is handled separately.", None),
        ("Tokens are sliced as \\texttt{x[:, 1:, :]} before the map is formed.", {"drop": ["cls"]}),
        ("Only the patch tokens enter the map; the class token is sliced off.", {"drop": ["cls"]}),
        ("The classification token is excluded of the map.", {"drop": ["cls"]}),
        (table("Removed tokens & [CLS]"), {"drop": ["cls"]}),
        ("Of the 197 tokens, the first one, the class token, is thrown away.", {"drop": ["cls"]}),
        ("The CLS-Token is not considered for the heatmap.", {"drop": ["cls"]}),
        ("The class token does not take part in the map.", {"drop": ["cls"]}),
    ],
    "reshape": [
        ("The patch tokens are reshaped to a 14-by-14 grid.", {"grid": [14, 14]}),
        ("We arrange the tokens on a fourteen by fourteen lattice.", {"grid": [14, 14]}),
        (table("Grid & $14 \\times 14$"), {"grid": [14, 14]}),
        ("The code calls \\texttt{reshape(B, 14, 14, C)} on the tokens.", {"grid": [14, 14]}),
        ("With $H = W = 224$ and $P = 16$, the tokens form an $H/P \\times W/P$ grid.", {"grid": [14, 14]}),
        ("Tokens are folded back in raster order into a 14 x 14 map.", {"grid": [14, 14], "order": "row_major"}),
        ("The patch tokens are re-arranged into 2D of size 14*14.", {"grid": [14, 14]}),
        ("The token map has 14 rows and 14 columns.", {"grid": [14, 14]}),
        ("The 196 remaining tokens are laid out as a square grid.", {"grid": [14, 14]}),
    ],
    "weighting": [
        ("Each channel weight is the gradient averaged over all spatial tokens.", "gap_gradients"),
        ("$\\alpha_k^c = \\frac{1}{Z}\\sum_{i}\\frac{\\partial y^c}{\\partial A^k_i}$ weights channel $k$.", "gap_gradients"),
        ("Gradients and activations are multiplied element-wise, without pooling.", "elementwise"),
        ("Channel weights come from global average pooling of the gradients.", "gap_gradients"),
        (table("Weighting & mean gradient per channel"), "gap_gradients"),
        ("The weight of a channel is the increase in the class score when that channel masks the input.", "scorecam"),
        ("The map is the projection of the activations on their first principal component.", "eigen"),
        ("The importance of every channel is given through the mean of its gradients over the tokens.", "gap_gradients"),
        ("I weigh each feature channel by its spatially averaged gradient.", "gap_gradients"),
    ],
    "heads": [
        ("The head maps are averaged.", {"aggregate": "mean"}),
        ("We take the mean over the twelve heads after the ReLU.", {"aggregate": "mean", "order": "after_relu"}),
        ("The 12 heads are treated as channels.", {"aggregate": "as_channels"}),
        ("Per-head maps are combined by taking the maximum over heads.", {"aggregate": "max"}),
        ("We average across all attention heads.", {"aggregate": "mean"}),
        (table("Heads & mean over heads"), {"aggregate": "mean"}),
        ("Heads are averaged before the rectification.", {"aggregate": "mean", "order": "before_relu"}),
        ("The twelve head maps are summed over heads.", None),
    ],
    "relu": [
        ("A ReLU is applied to the weighted sum.", "after_combination"),
        ("$L^c = \\mathrm{ReLU}(\\sum_k \\alpha_k A^k)$.", "after_combination"),
        ("We do not apply any ReLU, so the maps are signed.", "none"),
        ("Negative values of the summed map are set to zero.", "after_combination"),
        ("Negative gradients are clipped to zero before averaging.", "on_gradients"),
        ("The map is clamped at zero after summation over channels.", "after_combination"),
        ("The saliency map is $\\max(0, \\sum_k w_k A^k)$.", "after_combination"),
        ("No rectification is used anywhere in the pipeline.", "none"),
    ],
    "postprocess": [
        ("Maps are min-max normalised per image and bilinearly upsampled to 224×224.", {"normalize": "minmax", "upsample": "bilinear"}),
        ("Each map is rescaled by subtracting its minimum and dividing by its range, then resized with bicubic interpolation.", {"normalize": "minmax", "upsample": "bicubic"}),
        (table("Post-processing & min-max, bilinear upsampling"), {"normalize": "minmax", "upsample": "bilinear"}),
        ("$\\tilde{L} = (L - \\min L)/(\\max L - \\min L)$, then the map is upsampled bilinearly to the input size.", {"normalize": "minmax", "upsample": "bilinear"}),
        ("We did not normalise the maps; they are upsampled with nearest-neighbour interpolation.", {"normalize": "none", "upsample": "nearest"}),
        ("The heatmap is resized with bilinear interpolation and divided by its maximum.", {"normalize": "max", "upsample": "bilinear"}),
        ("Heatmap is normalized between 0 to 1 using min-max and upscaled by bilinear interpolation.", {"normalize": "minmax", "upsample": "bilinear"}),
        ("The maps are min-max normalised. They are then upsampled bilinearly to the photograph size.", {"normalize": "minmax", "upsample": "bilinear"}),
    ],
    "implementation": [
        ("We use pytorch-grad-cam 1.5.4 with its ViT reshape transform.", {"library": "pytorch-grad-cam", "version": "1.5.4"}),
        ("Saliency maps were computed with Captum v0.7.0.", {"library": "captum", "version": "0.7.0"}),
        (table("Library & pytorch-grad-cam (v1.5.0)"), {"library": "pytorch-grad-cam", "version": "1.5.0"}),
        ("Implementation relies on the jacobgil package, version 1.4.6.", {"library": "pytorch-grad-cam", "version": "1.4.6"}),
        ("Maps are produced by TorchCAM 0.4.0.", {"library": "torchcam", "version": "0.4.0"}),
        ("The code is installed as \\texttt{grad-cam==1.4.8} from pip.", {"library": "pytorch-grad-cam", "version": "1.4.8"}),
        ("Our code is released at github.com/leaflab/vitcam, tag v1.2.", None),
        ("I use the pytorch\\_grad\\_cam library in version 1.5.4.", {"library": "pytorch-grad-cam", "version": "1.5.4"}),
    ],
}

# A second round, in voices the first round did not cover.
MORE_REPORTED = {
    "model": [
        ("The classifier is \\texttt{timm.create\\_model('vit\\_base\\_patch16\\_224.augreg\\_in21k\\_ft\\_in1k', pretrained=True)}.", None),
        ("We take the ViT-B/16 of Dosovitskiy et al. as released in timm under the tag vit\\_base\\_patch16\\_224.augreg\\_in1k and fine-tune it.", None),
    ],
    "method": [
        ("Maps are obtained by the method of Selvaraju et al. (Grad-CAM) [cite].", "gradcam"),
        ("\\def\\hrc{HiResCAM}We rely on \\hrc{} throughout.", "hirescam"),
    ],
    "layer": [
        ("\\newcommand{\\lastblk}{the last encoder block}Gradients are collected at \\lastblk.", {"block": -1}),
        ("Gradients are collected at the twelfth and last block of the encoder.", {"block": -1}),
        ("The maps of the last four blocks are averaged.", None),
        ("Target layer: \\texttt{model.vit.encoder.layer[11]}.", {"block": 11}),
        ("We average the maps of the penultimate and the final block.", {"blocks": [-2, -1], "combine": "mean"}),
        ("Maps from the tenth, eleventh and twelfth blocks are summed.", {"blocks": [9, 10, 11], "combine": "sum"}),
        ("Maps of blocks -2 and -1 are averaged.", {"blocks": [-2, -1], "combine": "mean"}),
        ("We hook layer 11 of 12.", {"block": 10}),
        ("Blocks are 1-indexed; the map is taken at block 12.", {"block": 11}),
    ],
    "location": [
        ("The feature map is the pre-attention LayerNorm output of the last block.", "F1"),
        ("We read the output of the feed-forward sub-layer of the last block.", "F5"),
        ("Activations are the block output, i.e. the residual stream after the MLP, of the last block.", "F6"),
    ],
    "target": [
        ("The score explained is $s_c$, the logit of the class predicted by the network.", {"kind": "logit", "class": "predicted"}),
        ("Gradients flow from the softmax output for the true diagnosis.", {"kind": "softmax", "class": "ground_truth"}),
        ("We backpropagate from the logit of the predicted category; the softmax is not used.", {"kind": "logit", "class": "predicted"}),
    ],
    "tokens": [
        ("\\newcommand{\\cls}{\\texttt{[CLS]}}The \\cls{} token is dropped before reshaping.", {"drop": ["cls"]}),
        ("The first token (classification token) is removed; the remaining 196 are patch tokens.", {"drop": ["cls"]}),
        ("We keep the [CLS] token and read the map from its attention row.", None),
    ],
    "reshape": [
        ("The 196 tokens are reshaped into a square grid of side fourteen.", None),
        ("Patch tokens are arranged row by row into a $14\\times14$ grid.", {"grid": [14, 14]}),
        ("Reshaping yields a map of 14 by 14 positions.", {"grid": [14, 14]}),
        ("The sequence is reshaped to (14, 14).", {"grid": [14, 14]}),
        ("The tokens are viewed as a \\texttt{(B, 14, 14, D)} tensor.", {"grid": [14, 14]}),
    ],
    "weighting": [
        ("Per channel, the weight is the spatial mean of $\\partial y^c / \\partial A^k$.", "gap_gradients"),
        ("The gradient is pooled over the token dimension to give one weight per channel.", "gap_gradients"),
        ("Each channel is weighted by the average of its gradient over the 196 tokens.", "gap_gradients"),
        ("Each channel is weighted by its gradient averaged over the tokens, as in the original Grad-CAM formulation.", "gap_gradients"),
    ],
    "heads": [
        ("Per-head maps are averaged over the 12 heads.", {"aggregate": "mean"}),
        ("The heads are merged by averaging.", {"aggregate": "mean"}),
        ("Head maps are combined by taking their maximum.", {"aggregate": "max"}),
        ("The per-head maps are aggregated with the mean.", {"aggregate": "mean"}),
    ],
    "relu": [
        ("Only positive contributions of the weighted sum are kept: the sum is passed through a ReLU.", "after_combination"),
        ("The final map is $\\mathrm{ReLU}(\\sum_k w_k A^k)$.", "after_combination"),
        ("We keep negative values, i.e. no ReLU.", "none"),
    ],
    "postprocess": [
        ("Post-processing: min-max normalisation per map and bilinear interpolation to $224\\times224$.", {"normalize": "minmax", "upsample": "bilinear"}),
        ("Each map is divided by its maximum and enlarged with bicubic interpolation to the image size.", {"normalize": "max", "upsample": "bicubic"}),
    ],
    "implementation": [
        ("We used \\texttt{pytorch-grad-cam} (version 1.5.4).", {"library": "pytorch-grad-cam", "version": "1.5.4"}),
        ("Explanations rely on Captum, release 0.7.0.", {"library": "captum", "version": "0.7.0"}),
    ],
}
for _key, _rows in MORE_REPORTED.items():
    REPORTED[_key] = REPORTED[_key] + _rows


# Round three: classes found by the rounds before (two phrasings each).
ROUND3 = {
    "relu": [
        ("Negative evidence is clamped to zero once the channels have been summed.", "after_combination"),
        ("Negative values are set to zero when all products have been added.", "after_combination"),
        ("We pass the channel sum through $\\max(\\cdot, 0)$.", "after_combination"),
        ("The weighted sum is followed by $\\max(x, 0)$.", "after_combination"),
    ],
    "location": [
        ("Feature maps are the outputs of the MLP sub-block (after fc2) of the last block.", "F5"),
        ("We hook the outputs of the feed-forward branch of the last block.", "F5"),
        ("We take $z_L$, the token sequence leaving the last encoder block.", "F6"),
        ("Activations are the tokens exiting the final transformer block.", "F6"),
        ("We hook the query-key softmax of the last block.", "F2"),
        ("The query-key attention weights of the last block form the feature map.", "F2"),
    ],
    "postprocess": [
        ("Upsampling: bilinear. Normalisation: min-max.", {"normalize": "minmax", "upsample": "bilinear"}),
        ("Resizing: bicubic, to the input size. Normalisation: min-max over each image.", {"normalize": "minmax", "upsample": "bicubic"}),
        ("We min-max normalise and upsample (bilinear, align\\_corners=False).", {"normalize": "minmax", "upsample": "bilinear"}),
        ("We upsample bicubically and then normalise with min-max.", {"normalize": "minmax", "upsample": "bicubic"}),
        ("Maps are normalised so that the maximum is one and upsampled by nearest neighbour.", {"normalize": "max", "upsample": "nearest"}),
    ],
    "weighting": [
        ("The weights $w_k$ are obtained by averaging $\\partial y / \\partial A_k$ over the $N$ tokens.", "gap_gradients"),
        ("Weights come from averaging the gradients across all patch tokens.", "gap_gradients"),
        ("Per-token gradients multiply the activations directly (no pooling).", "elementwise"),
        ("The activations are multiplied by their gradients without spatial averaging.", "elementwise"),
    ],
}
for _key, _rows in ROUND3.items():
    REPORTED[_key] = REPORTED[_key] + _rows


# Round four.
ROUND4 = {
    "tokens": [
        ("The [CLS] and the distillation token are not used for the map.", {"drop": ["cls", "dist"]}),
        ("The register tokens and the class token are not considered.", None),
        ("We leave out the class embedding.", {"drop": ["cls"]}),
        ("The CLS token was kept out of the heatmap.", {"drop": ["cls"]}),
    ],
    "method": [
        ("For explanations I rely on gradient-weighted class activation mapping.", "gradcam"),
        ("Heatmaps follow gradient weighted class activation mapping [cite].", "gradcam"),
    ],
}
for _key, _rows in ROUND4.items():
    REPORTED[_key] = REPORTED[_key] + _rows


PARTIAL = {
    "model": [("We fine-tune it from ImageNet-pretrained weights.", None)],
    "method": [("We explain the transformer with gradient-based saliency.", None)],
    "layer": [("The map is read at an intermediate block.", None)],
    "location": [("We use the token features of the last block.", None)],
    "target": [("We differentiate the logit.", None)],
    "weighting": [("Channels are weighted by the gradients.", None)],
    "postprocess": [("Maps are min-max normalised.", None)],
    "implementation": [("Maps are computed with pytorch-grad-cam.", None),
                       ("I implemented Grad-CAM myself with forward hooks.", None)],
}

# Sentences that must NOT count: someone else's setting, a CNN baseline, related work, future
# work, a hypothetical. The item keeps the skeleton's status.
NOT_COUNTED = {
    "model": [
        "One could also start from the official MAE ViT-B/16 weights.",
        "Li et al. [cite] fine-tune vit\\_base\\_patch16\\_224.augreg\\_in21k on chest radiographs.",
        "The ResNet-50 baseline is initialised from the torchvision checkpoint resnet50.tv\\_in1k.",
        "In future work we will start from the official DINOv2 ViT-L/14 checkpoint.",
    ],
    "method": [
        "One could equally use HiResCAM here.",
        "Chen et al. [cite] explained a ViT with Score-CAM.",
        "The ResNet-50 baseline is explained with Grad-CAM++.",
        "Future work could try LayerCAM on the same model.",
    ],
    "layer": [
        "One might also hook the penultimate block.",
        "Wang et al. [cite] take the penultimate block of DeiT-S.",
        "For the ResNet-50 baseline, Grad-CAM hooks layer4 of the CNN.",
        "Future work will compare the maps of all twelve blocks.",
    ],
    "location": [
        "Alternatively, one could take the output of the MLP.",
        "Kim et al. [cite] hook the first LayerNorm of each block.",
        "For the CNN baseline we hook the output of the last convolutional layer.",
        "Future work could use the attention matrices instead.",
    ],
    "target": [
        "One could also differentiate the softmax probability of the ground-truth class.",
        "Park et al. [cite] differentiate the softmax probability of the true class.",
        "For the CNN baseline we backpropagate the logit of the predicted class.",
        "In future work we will explain the loss instead.",
    ],
    "tokens": [
        "One could also keep the class token and drop its row later.",
        "Zhang et al. [cite] drop the class token before reshaping.",
        "Future work could keep the class token.",
        "Related approaches [cite] remove the distillation token of DeiT.",
    ],
    "reshape": [
        "A finer 28×28 grid would be possible with smaller patches.",
        "Lee et al. [cite] reshape the tokens to a 16×16 grid.",
        "The ResNet-50 baseline yields a 7×7 map from its last convolutional layer.",
        "Future work could interpolate the tokens to a 28×28 grid.",
    ],
    "weighting": [
        "One could instead weight channels by second-order terms of the gradient.",
        "Selvaraju et al. [cite] weight the channels by averaged gradients.",
        "For the CNN baseline, channel weights are the mean gradients.",
        "Future work will compare element-wise weighting.",
    ],
    "heads": [
        "One could also take the maximum over heads.",
        "Chefer et al. [cite] average the heads.",
        "Future work will treat the heads as channels.",
        "Abnar and Zuidema [cite] take the maximum over heads.",
    ],
    "relu": [
        "One might apply the ReLU to the gradients instead.",
        "Draelos and Carin [cite] apply a ReLU on the gradients.",
        "For the ResNet-50 baseline a ReLU is applied to the weighted sum.",
        "Future work could drop the ReLU to obtain signed maps.",
    ],
    "postprocess": [
        "One could also normalise the maps by their 99th percentile and upsample them bicubically.",
        "Gildenblat [cite] normalises the maps with min-max and upsamples them bicubically.",
        "The CNN baseline maps are min-max normalised and bilinearly upsampled.",
        "Input photographs are resized to 224×224 and normalised with ImageNet statistics.",
    ],
    "implementation": [
        "A reader could reproduce the maps with Captum 0.7.0.",
        "Gupta et al. [cite] used pytorch-grad-cam 1.3.1.",
        "The CNN baseline maps come from Captum 0.6.0.",
        "Future versions of this work will use TorchCAM 0.4.0.",
    ],
}

# More that must not count: the original paper quoted, a comparison figure, a reviewer's request.
MORE_NOT_COUNTED = {
    "relu": ["In the original Grad-CAM paper, a ReLU is applied after the weighted sum [cite]."],
    "layer": ["Our maps reach 71.3% pointing accuracy, against 61.2% for Grad-CAM on the last block of DeiT-B [cite]."],
    "weighting": ["The original formulation [cite] averages the gradients over the spatial positions."],
    "postprocess": ["Prior studies [cite] min-max normalise and bilinearly upsample their maps.",
                    "For attention rollout [cite] we fuse heads by their maximum; the class-token row is "
                    "reshaped, min-max normalised and upsampled bilinearly."],
    "tokens": ["Several works [cite] discard the class token before reshaping.",
               # a clause after a semicolon where the authors do not speak continues the clause before
               "Chefer et al. [cite] use every block; the class token is dropped and the rest is reshaped."],
    "target": ["A reviewer asked whether the logit of the predicted class was differentiated; please see below."],
}
for _key, _rows in MORE_NOT_COUNTED.items():
    NOT_COUNTED[_key] = NOT_COUNTED[_key] + _rows

SKELETON_STATUS = {"model": "partial", "method": "partial", "heads": "missing"}


def _cases():
    for key, rows in REPORTED.items():
        for i, (sentence, value) in enumerate(rows):
            yield pytest.param(key, sentence, "reported", value, id=f"{key}-reported-{i}")
    for key, rows in PARTIAL.items():
        for i, (sentence, value) in enumerate(rows):
            yield pytest.param(key, sentence, "partial", value, id=f"{key}-partial-{i}")
    for key, rows in NOT_COUNTED.items():
        for i, sentence in enumerate(rows):
            yield pytest.param(key, sentence, SKELETON_STATUS.get(key, "missing"), None, id=f"{key}-other-{i}")


def _value_matches(got, want) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(got.get(k) == v for k, v in want.items())
    return got == want


@pytest.mark.parametrize("key,sentence,status,value", list(_cases()))
def test_paraphrase(tmp_path, key, sentence, status, value):
    doc = doc_of(write_project(tmp_path, {"main.tex": manuscript(key, sentence)}))
    assert doc["uses_cam_on_transformer"] is True
    entry = doc["checklist"][key]
    assert entry["status"] == status, (sentence, entry)
    if value is not None:
        assert _value_matches(entry["value"], value), (sentence, entry)
