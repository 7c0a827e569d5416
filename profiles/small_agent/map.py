# small-agent@1's `map`: the files under a directory, then a signature outline of the source files (top-level and
# class-level definitions with their line numbers), together at most BUDGET lines. Signatures are what let a small
# model pick the file to read; sizes do not.
import os, re, sys

root = sys.argv[1]
BUDGET = int(sys.argv[2]) if len(sys.argv) > 2 else 120
SKIP_DIRS = {'node_modules', '__pycache__', 'venv', 'target', 'dist', 'build'}
MAX_FILES = 5000
MAX_BYTES = 512 * 1024
WIDTH = 120

PY = re.compile(r'(?:async\s+)?(?:def|class)\s+\w')
JS = [re.compile(r'(?:export\s+(?:default\s+)?)?(?:async\s+)?function\b'),
      re.compile(r'(?:export\s+(?:default\s+)?)?(?:abstract\s+)?class\s+\w'),
      re.compile(r'export\s+const\s+\w+[^=]*=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*(?::[^=]*)?=>')]
GO = re.compile(r'func\b')
RS = re.compile(r'(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+"[^"]*")\s+)*fn\s+\w')
LANG = {'.py': 'py', '.go': 'go', '.rs': 'rs'}
LANG.update({e: 'js' for e in ('.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts')})


def files():
    out = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x not in SKIP_DIRS)
        for n in sorted(names):
            if n.startswith('.'):
                continue
            out.append(os.path.relpath(os.path.join(d, n), root))
            if len(out) >= MAX_FILES:
                return sorted(out)
    return sorted(out)


def indent(line):
    return len(line) - len(line.lstrip())


def outline_py(lines):
    # Top-level defs and classes, and the defs of a top-level class at its body's indent (not nested helpers).
    found, in_class, body = [], False, None
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        ind = indent(line)
        if ind == 0:
            in_class, body = s.startswith('class '), None
            if PY.match(s):
                found.append((i, line))
        elif in_class:
            if body is None:
                body = ind
            if ind == body and PY.match(s):
                found.append((i, line))
    return found


def outline_other(lines, lang):
    found = []
    for i, line in enumerate(lines, 1):
        s = line.strip()
        ind = indent(line)
        if lang == 'js' and ind == 0 and any(p.match(s) for p in JS):
            found.append((i, line))
        elif lang == 'go' and ind == 0 and GO.match(s):
            found.append((i, line))
        elif lang == 'rs' and ind <= 4 and RS.match(s):  # free functions and the methods of an impl block
            found.append((i, line))
    return found


def outline(rel):
    lang = LANG.get(os.path.splitext(rel)[1])
    if not lang:
        return []
    p = os.path.join(root, rel)
    try:
        if os.path.getsize(p) > MAX_BYTES:
            return []
        with open(p, 'rb') as f:
            data = f.read()
    except OSError:
        return []
    if b'\0' in data:
        return []
    lines = data.decode('utf-8', 'replace').splitlines()
    found = outline_py(lines) if lang == 'py' else outline_other(lines, lang)
    out = []
    for n, line in found:
        text = line.rstrip()
        if len(text) > WIDTH:
            text = text[:WIDTH] + '…'
        out.append('  %d: %s' % (n, text))
    return out


all_files = files()
sig = []
for rel in all_files:
    o = outline(rel)
    if o:
        sig.append(rel)
        sig.extend(o)

out = ['Files in %s (%d%s):' % (root, len(all_files), '+' if len(all_files) >= MAX_FILES else '')]
# The file list gets half the budget when there is an outline to show, all of it otherwise.
room = (BUDGET // 2 if sig else BUDGET) - 1
if len(all_files) > room:
    out += all_files[:room - 1] + ['… %d more files' % (len(all_files) - room + 1)]
else:
    out += all_files or ['(no files)']
if sig:
    out += ['', 'Outline (line: definition):']
    room = BUDGET - len(out)
    if len(sig) > room:
        out += sig[:room - 1] + ['… %d more lines' % (len(sig) - room + 1)]
    else:
        out += sig
sys.stdout.write('\n'.join(out) + '\n')
