"""Macro tables for turning LaTeX (text and math) into plain text that patterns can read.

`$\\alpha^c_k=\\frac{1}{N}\\sum_i \\partial y^c/\\partial A^k_i$` becomes
`α^c_k=(1)/(N)Σ_i ∂ y^c/∂ A^k_i`, and `$14\\times 14$` becomes `14×14`.
"""
from __future__ import annotations

SYMBOLS = {
    "times": "×", "cdot": "·", "odot": "⊙", "otimes": "⊗", "circ": "∘", "ast": "*", "star": "*",
    "partial": "∂", "nabla": "∇", "sum": "Σ", "prod": "Π", "in": "∈", "le": "≤", "leq": "≤",
    "ge": "≥", "geq": "≥", "approx": "≈", "neq": "≠", "ne": "≠", "pm": "±", "infty": "∞",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "mapsto": "↦", "Rightarrow": "⇒",
    "ldots": "…", "dots": "…", "cdots": "…", "dotsc": "…", "dotsb": "…",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ", "tau": "τ", "phi": "φ",
    "omega": "ω", "pi": "π", "rho": "ρ", "xi": "ξ", "Sigma": "Σ", "Delta": "Δ", "ell": "ℓ",
    "max": "max", "min": "min", "exp": "exp", "log": "log", "cos": "cos", "sin": "sin",
    "arg": "arg", "argmax": "argmax", "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖",
    "lvert": "|", "rvert": "|", "vert": "|", "langle": "⟨", "rangle": "⟩", "top": "T",
    "%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}",
    "ss": "ss", "ae": "ae", "o": "o", "aa": "a", "l": "l", "i": "i", "S": "§", "textbackslash": "\\",
    "textasciitilde": "~", "textendash": "–", "textemdash": "—", "textbar": "|",
    "LaTeX": "LaTeX", "TeX": "TeX", "dag": "†", "ddag": "‡",
}
SPACES = {"quad", "qquad", ",", ";", ":", " ", "enspace", "thinspace", "medspace", "thickspace",
          "space", "hfill", "hfil", "newline", "linebreak", "par", "nobreakspace", "break", "allowbreak"}
SILENT = {"!", "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
          "biggl", "biggr", "displaystyle", "textstyle", "limits", "nolimits", "label", "index",
          "vspace", "hspace", "centering", "raggedright", "raggedleft", "includegraphics",
          "bibliography", "bibliographystyle", "addbibresource", "maketitle", "newpage",
          "clearpage", "noindent", "small", "footnotesize", "scriptsize", "tiny", "normalsize",
          "large", "Large", "LARGE", "huge", "Huge", "toprule", "midrule", "bottomrule", "hline",
          "cline", "cmidrule", "addlinespace", "setlength", "usepackage", "documentclass", "author",
          "date", "thanks", "newcommand", "renewcommand", "providecommand", "def", "let",
          "DeclareMathOperator", "newenvironment", "DefineVerbatimEnvironment", "input", "include",
          "subfile", "import", "subimport", "appendix", "tableofcontents", "nocite", "protect",
          "phantom", "vfill", "smallskip", "medskip", "bigskip", "footnotemark", "multicolumn",
          "multirow", "rowcolor", "cellcolor", "color", "bf", "it", "em", "rm", "tt", "sf", "sc",
          "selectfont", "fontsize", "ignorespaces", "relax", "strut", "linewidth", "textwidth",
          "columnwidth", "baselineskip", "arraystretch", "tabcolsep", "resizebox", "scalebox",
          "captionsetup", "graphicspath", "hypersetup", "geometry", "pagestyle", "thispagestyle",
          "sisetup", "lstset", "newtheorem", "theoremstyle", "numberwithin", "setcounter",
          "addtocounter", "stepcounter", "refstepcounter", "marginpar", "todo", "ensuremath"}
TEXT_WRAPPERS = {"texttt", "textbf", "textit", "emph", "textsc", "textrm", "textsf", "textup",
                 "textmd", "textnormal", "underline", "mbox", "text", "mathrm", "mathbf", "mathit",
                 "mathsf", "mathtt", "mathcal", "mathbb", "mathfrak", "mathscr", "operatorname",
                 "boldsymbol", "bm", "hbox", "fbox", "uppercase", "MakeUppercase", "textsuperscript",
                 "textsubscript", "url", "nolinkurl", "path", "hl", "ul", "textcolor", "colorbox",
                 "href", "enquote", "textquote", "intertext", "overline", "hat", "tilde", "bar",
                 "vec", "widehat", "widetilde", "dot", "ddot", "mathring", "acute", "grave", "breve",
                 "check", "'", '"', "`", "^", "~", "=", ".", "u", "v", "H", "c", "d", "b", "k", "r",
                 "t", "textsuperscript", "verb", "lstinline", "mintinline", "code", "SI", "num", "si",
                 "qty", "unit", "ang", "makebox", "framebox", "parbox", "raisebox", "scriptstyle",
                 "textnormal", "textmu", "ce", "underbrace", "overbrace", "smash", "xspace"}
FRACTIONS = {"frac", "tfrac", "dfrac", "cfrac", "nicefrac", "sfrac"}
CITES = {"cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "parencite",
         "textcite", "autocite", "Cite", "Citep", "Citet", "footcite", "smartcite", "supercite",
         "citenum", "Autocite", "Parencite", "Textcite", "fullcite"}
REFS = {"ref", "eqref", "autoref", "cref", "Cref", "pageref", "nameref", "vref", "Vref",
        "autopageref", "labelcref"}
HEADINGS = {"part": 0, "chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
            "paragraph": 4, "subparagraph": 5}
SEPARATE_UNITS = {"caption": "caption", "footnote": "footnote", "footnotetext": "footnote",
                  "subcaption": "caption", "title": "title", "tablenotes": "footnote"}
ROW_BREAKS = {"\\", "tabularnewline", "cr"}
ITEMS = {"item", "STATE", "State", "IF", "ELSE", "FOR", "ENDFOR", "ENDIF", "RETURN", "Return",
         "Require", "Ensure", "REQUIRE", "ENSURE", "bibitem"}

TABULAR_ENVS = {"tabular", "tabular*", "tabularx", "tabulary", "longtable", "tabu", "supertabular",
                "NiceTabular", "tblr"}
MATH_ENVS = {"equation", "equation*", "align", "align*", "gather", "gather*", "multline",
             "multline*", "eqnarray", "eqnarray*", "displaymath", "math", "split", "aligned",
             "flalign", "flalign*", "alignat", "alignat*", "cases", "array", "matrix", "pmatrix",
             "bmatrix", "dmath", "subequations"}
FLOAT_ENVS = {"figure", "figure*", "table", "table*", "wrapfigure", "wraptable", "subfigure",
              "subtable", "algorithm", "algorithm*", "SCfigure", "sidewaystable", "sidewaysfigure"}
SKIP_ENVS = {"thebibliography", "tikzpicture", "pgfpicture", "axis", "filecontents", "filecontents*"}
