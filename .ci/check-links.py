#!/usr/bin/env python3
"""Checks every relative Markdown link in the repository's README files and
Board/*.md: the file must exist and, for `path#anchor`, the anchor must be
a heading of that file (GitHub's slug rules: lower-case, punctuation other
than '-' and '_' dropped, spaces to '-'). Exits 1 on a broken link."""
import os, re, subprocess, sys

root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                      text=True, check=True).stdout.strip()
files = subprocess.run(["git", "ls-files", "*.md"], capture_output=True, text=True,
                       cwd=root, check=True).stdout.split()
link = re.compile(r"\]\(([^)\s]+)\)")

def slugs(path):
    out, in_code = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        text = re.sub(r"[^\w\- ]", "", text)
        out.add(text.replace(" ", "-"))
    return out

broken = 0
for name in files:
    path = os.path.join(root, name)
    in_code = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in link.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                print(f"{name}:{number}: no such file: {target}")
                broken += 1
            elif anchor and dest.endswith(".md") and anchor not in slugs(dest):
                print(f"{name}:{number}: no heading #{anchor} in {file_part or name}")
                broken += 1
print(f"{len(files)} files checked, {broken} broken links")
sys.exit(1 if broken else 0)
