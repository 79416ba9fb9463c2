#!/usr/bin/env python3
"""retained_diff.py OURS REF... : compares retained sizes that `jvmprof heap
--retained --tsv` printed (OURS) with the reference's rows for the same dump
(tests/tools/retainedref.sh, VisualVM's heap library: REF, one or more files).

    build/jvmprof heap D.hprof --retained --tsv --top 1000 >ours.tsv
    tests/tools/retainedref.sh D.hprof --ids ours.tsv >ref-objects.tsv
    tests/tools/retainedref.sh D.hprof --classes 100000 >ref-classes.tsv
    tests/tools/retained_diff.py ours.tsv ref-objects.tsv ref-classes.tsv

Rows read: "object\\t0x<id>\\t<class>\\t<shallow>\\t<retained>" (ours),
"0x<id>\\t<class>\\t<shallow>\\t<retained>" (the reference's; "-" fields: no
such object in the dump) and "class\\t<name>\\t<instances>\\t<shallow>\\t<retained>"
(both); lines starting with '#' and others are skipped. --column K (4, the
default, to 7) compares ours with the reference's K-th column: 4 is the
library's retained size, 5-7 those of `retainedref.sh --removal` (5: every
reference retains; 6: referents skipped; 7: like the library). Each object and each
class of OURS is looked up in REF. Prints one summary line per kind,
"objects: compared N, same N, class differs N, shallow differs N, retained
differs N, not in ref N" (likewise "classes:" with instances), then up to
LIMIT (default 20, --limit N) differing rows, biggest retained difference
first, as "ours ... | ref ...". Exit 0 if every compared row is the same and
nothing is missing, 1 if not, 2 on bad arguments or unreadable files.
"""
import sys

COLUMN = 4


def read_rows(path, objects, classes, ours):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f"retained_diff: {path}: cannot read: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    for line in lines:
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "class" and len(cols) == 5:
            classes[cols[1]] = tuple(cols[2:5])
        elif ours and cols[0] == "object" and len(cols) == 5 and cols[1].startswith("0x"):
            objects[int(cols[1], 16)] = tuple(cols[2:5])
        elif not ours and len(cols) >= 4 and cols[0].startswith("0x"):
            if COLUMN > len(cols):
                print(f"retained_diff: {path}: a row has no column {COLUMN} (run retainedref.sh with --removal)",
                      file=sys.stderr)
                sys.exit(2)
            objects[int(cols[0], 16)] = (cols[1], cols[2], cols[COLUMN - 1])


def number(s):
    try:
        return int(s)
    except ValueError:
        return None


def compare(kind, ours, ref, labels, limit):
    """labels: names of the 3 columns; the first is compared as text, the others as numbers."""
    counts = {"compared": 0, "same": 0, "missing": 0}
    for label in labels:
        counts[label] = 0
    diffs = []
    for key, row in ours.items():
        other = ref.get(key)
        if other is None or other[0] == "-":
            counts["missing"] += 1
            diffs.append((float("inf"), key, row, None))
            continue
        counts["compared"] += 1
        differs = False
        for i, label in enumerate(labels):
            if row[i] != other[i]:
                counts[label] += 1
                differs = True
        if differs:
            a, b = number(row[2]), number(other[2])
            diffs.append((abs(a - b) if a is not None and b is not None else 0, key, row, other))
        else:
            counts["same"] += 1
    print(f"{kind}: compared {counts['compared']}, same {counts['same']}, " +
          ", ".join(f"{label} differs {counts[label]}" for label in labels) +
          f", not in ref {counts['missing']}")
    diffs.sort(key=lambda d: (-d[0], str(d[1])))
    for _, key, row, other in diffs[:limit]:
        name = f"0x{key:x}" if isinstance(key, int) else key
        print(f"  {name}\tours {' '.join(row)}\t| ref {' '.join(other) if other else '(none)'}")
    return counts["compared"] == counts["same"] and counts["missing"] == 0


def main(argv):
    global COLUMN
    limit = 20
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--limit" and i + 1 < len(argv) and argv[i + 1].isdigit():
            limit = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--column" and i + 1 < len(argv) and argv[i + 1] in ("4", "5", "6", "7"):
            COLUMN = int(argv[i + 1])
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) < 2:
        print("usage: retained_diff.py [--limit N] [--column 4|5|6|7] OURS.tsv REF.tsv...", file=sys.stderr)
        return 2
    ours_objects, ours_classes, ref_objects, ref_classes = {}, {}, {}, {}
    read_rows(args[0], ours_objects, ours_classes, True)
    for path in args[1:]:
        read_rows(path, ref_objects, ref_classes, False)
    if not ours_objects and not ours_classes:
        print(f"retained_diff: {args[0]}: no 'object' or 'class' rows", file=sys.stderr)
        return 2
    ok = True
    if ours_objects:
        ok &= compare("objects", ours_objects, ref_objects, ["class", "shallow", "retained"], limit)
    if ours_classes:
        ok &= compare("classes", ours_classes, ref_classes, ["instances", "shallow", "retained"], limit)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
