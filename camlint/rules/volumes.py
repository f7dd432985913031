"""Token volumes of video transformers (time x height x width), read for CAM212.

A video transformer cuts a clip into tubelets of one frame (TimeSformer) or more (ViViT,
VideoMAE and Video Swin use 2), so its token volume has at most as many time positions as the
clip has frames; a volume also holds exactly T x H x W patch tokens.
"""
from __future__ import annotations

import re

# "16×14×14", "8 x 7 x 7": three sides, not part of a longer product ("1×3×8×224×224")
_TRIPLE = re.compile(r"(?<![\d.×*])(\d{1,3})\s*[×x*]\s*(\d{1,3})\s*[×x*]\s*(\d{1,3})(?![\d.]|\s*[×*]\s*\d)")
_TIME = re.compile(r"\b(?:time|temporal\w*|spatio-?temporal|frames?|tubelets?|clips?)\b")
_TOKEN_TALK = re.compile(r"\b(?:tokens?|reshap\w*|volumes?|grids?|lattices?|arranged|folded)\b")
_RESAMPLED = re.compile(r"\b(?:upsampl\w*|up-sampl\w*|resiz\w*|interpolat\w*|resampl\w*)\b")
# "clips of 8 frames", "16-frame clips", "clips have 16 frames at 224×224", "8 frames per clip"
_FRAMES = re.compile(
    r"\bclips? (?:of|with|ha(?:ve|s)|contain\w*|consist\w* of) (\d{1,3}) (?:[\w-]+ )?frames\b"
    r"|\b(\d{1,3})[- ]frames? (?:video )?(?:clips?|inputs?|snippets?|windows?|segments?)\b"
    r"|\b(\d{1,3}) (?:[\w-]+ )?frames (?:per (?:clip|input|sample)\b|(?:of|at) \d{2,4}\s*[×x]\s*\d{2,4})")
_GRID_SIDE = 64          # token grids are small; 224 x 224 sides are pixels


def _triples(low: str):
    for m in _TRIPLE.finditer(low):
        yield m, tuple(int(g) for g in m.groups())


def clip_frames(sentences) -> set[int]:
    """Frames per clip that the sentences state, in words or as the time side of the volume the
    maps are resampled to ("trilinearly upsampled to 8×224×224")."""
    out: set[int] = set()
    for s in sentences:
        out.update(int(n) for m in _FRAMES.finditer(s.low) for n in m.groups() if n)
        if _RESAMPLED.search(s.low):
            out.update(t for _, (t, h, w) in _triples(s.low) if h > _GRID_SIDE and w > _GRID_SIDE)
    return out


def token_volumes(s):
    """(match, (t, h, w)) of each token volume the sentence states: it speaks of time and of
    tokens or a reshape, and the sides are a token grid, not pixels."""
    if not (_TIME.search(s.low) and _TOKEN_TALK.search(s.low)):
        return []
    return [(m, v) for m, v in _triples(s.low) if 1 < v[0] and v[1] <= _GRID_SIDE and v[2] <= _GRID_SIDE]


def more_positions_than_frames(volume: tuple[int, int, int], frames: set[int]) -> int | None:
    """The largest clip length stated, where the volume has more time positions than it."""
    if not frames or volume[0] <= max(frames):
        return None
    return max(frames)
