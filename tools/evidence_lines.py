"""Development aid: compare camlint's evidence lines with the corpus labels (not a test)."""
import json
import subprocess
import sys
from pathlib import Path

import yaml

corpus = Path(sys.argv[1])
labels = yaml.safe_load((corpus / "labels.yaml").read_text())
hit = total = 0
for doc, truth in sorted(labels.items()):
    out = subprocess.run([sys.executable, "-m", "camlint", "check", str(corpus / doc / "main.tex"), "--format", "json"],
                         capture_output=True, text=True)
    got = json.loads(out.stdout)["documents"][0]["checklist"]
    for key, item in truth["items"].items():
        if item["status"] not in ("reported", "partial"):
            continue
        want = {f"{item['file']}:{item['line']}"} | set(item.get("also") or [])
        ev = got[key]["evidence"]
        have = [f"{Path(e['file']).relative_to(corpus / doc)}:{e['line']}" for e in ev]
        total += 1
        if have and have[0] in want:
            hit += 1
        else:
            print(f"{doc} {key}: want {sorted(want)} got {have[:3]} value={got[key]['value']}")
print(f"primary evidence line agrees: {hit}/{total}")
