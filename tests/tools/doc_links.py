#!/usr/bin/env python3
"""doc_links.py ROOT: every link between the project's Markdown pages resolves.

Reads README.md, docs/*.md, tests/README.md, bench/README.md and
examples/**/README.md under ROOT. A relative link must name a file or
directory that exists; a link with #anchor into a Markdown page must name a
heading of that page (GitHub's rule: lower case, punctuation but '-' and '_'
dropped, spaces to '-', a repeated heading gets -1, -2 ...) or an
<a name="..."></a> in it. Links to http(s) and mailto are not followed.
Prints one line per broken link and exits 1 if there is any; else prints
how many links it checked. Every docs/*.md page must also be linked from
README.md, the front page."""
import glob
import os
import re
import sys

root = sys.argv[1]
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*(```|~~~)')


def slug(text):
    text = re.sub(r'`|\*\*|<[^>]+>', '', text).strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def lines_outside_code(path):
    fenced = False
    for line in open(path, encoding='utf-8'):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield line


anchors_cache = {}


def anchors(path):
    if path not in anchors_cache:
        seen, names = {}, set()
        for line in lines_outside_code(path):
            m = re.match(r'^#{1,6} (.*)', line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                names.add(s if n == 0 else '%s-%d' % (s, n))
                seen[s] = n + 1
            names.update(re.findall(r'<a name="([^"]+)"></a>', line))
        anchors_cache[path] = names
    return anchors_cache[path]


pages = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
pages += [p for p in [os.path.join(root, 'tests', 'README.md'), os.path.join(root, 'bench', 'README.md')]
          if os.path.exists(p)]
pages += sorted(glob.glob(os.path.join(root, 'examples', '**', 'README.md'), recursive=True))
broken, checked = [], 0
for page in pages:
    for line in lines_outside_code(page):
        for target in LINK.findall(line):
            if re.match(r'^(https?|mailto):', target):
                continue
            checked += 1
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = os.path.relpath(page, root)
            if not os.path.exists(dest):
                broken.append('%s: %s: no such file' % (where, target))
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                broken.append('%s: %s: no heading #%s in %s' % (where, target, anchor, os.path.relpath(dest, root)))
readme = os.path.join(root, 'README.md')
linked = {os.path.normpath(os.path.join(root, t.partition('#')[0]))
          for line in lines_outside_code(readme) for t in LINK.findall(line)}
for page in sorted(glob.glob(os.path.join(root, 'docs', '*.md'))):
    if os.path.normpath(page) not in linked:
        broken.append('README.md: no link to %s' % os.path.relpath(page, root))
for b in broken:
    print(b)
if broken:
    sys.exit(1)
print('%d links in %d pages resolve' % (checked, len(pages)))
