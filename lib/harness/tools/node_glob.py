# node-glob as the JavaScript harnesses call it (dot: true, nodir: true, follow: false; approx.: minimatch without
# extglobs): brace expansion, `**`, `*`, `?`, classes, a pattern naming an existing path taken literally, an absolute
# pattern searched from /. argv: root, pattern, then a JSON object of options:
#   nocase (bool), ignore (directory names never entered), drop_links (skip symlinked files and directories),
#   cap (stop after this many hits, hitLimit set; 0 = no cap), zero_mtime (a file that cannot be stat'ed is kept
#   with mtime 0 instead of dropped).
# Prints {now, hits: [[path, mtimeMs]], hitLimit}.
import json, os, re, sys, time
root, pat, opt = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
IGNORED = set(opt.get('ignore', []))
FLAGS = (re.I if opt.get('nocase') else 0) | re.S
CAP = opt.get('cap', 0)
DROP_LINKS = opt.get('drop_links', False)
def braces(p):
    depth = 0; start = -1
    for i, c in enumerate(p):
        if c == '\\': continue
        if c == '{':
            if depth == 0: start = i
            depth += 1
        elif c == '}' and depth:
            depth -= 1
            if depth == 0:
                body = p[start + 1:i]; items = []; d = 0; cur = ''
                for ch in body:
                    if ch == ',' and d == 0: items.append(cur); cur = ''; continue
                    if ch == '{': d += 1
                    if ch == '}': d -= 1
                    cur += ch
                items.append(cur)
                if len(items) < 2: return [p]
                out = []
                for it in items: out += braces(p[:start] + it + p[i + 1:])
                return out
    return [p]
def seg_re(s):
    out = ''; i = 0
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s): out += re.escape(s[i + 1]); i += 2; continue
        if c == '*': out += '[^/]*'
        elif c == '?': out += '[^/]'
        elif c == '[':
            j = s.find(']', i + 2)
            if j < 0: out += re.escape(c)
            else:
                body = s[i + 1:j]
                if body[:1] in '!^': body = '^' + body[1:]
                out += '[' + body.replace('\\', '\\\\') + ']'; i = j
        else: out += re.escape(c)
        i += 1
    return re.compile('^' + out + '$', FLAGS)
def compile_pat(p, literal):
    segs = [x for x in p.split('/') if x not in ('', '.')]
    if literal: return [re.compile('^' + re.escape(x) + '$', FLAGS) for x in segs]
    return [None if x == '**' else seg_re(x) for x in segs]
def match(ps, parts, i=0, j=0, memo=None):
    if memo is None: memo = {}
    k = (i, j)
    if k in memo: return memo[k]
    if i == len(ps): r = j == len(parts)
    elif ps[i] is None: r = any(match(ps, parts, i + 1, t, memo) for t in range(j, len(parts) + 1))
    else: r = j < len(parts) and parts[j] not in ('.', '..') and bool(ps[i].match(parts[j])) and match(ps, parts, i + 1, j + 1, memo)
    memo[k] = r
    return r
base = root
literal = os.path.exists(os.path.join(root, pat))
if pat.startswith('/'): base = '/'; pat = pat.lstrip('/')
compiled = [compile_pat(p, literal) for p in ([pat] if literal else braces(pat))]
deep = any(None in c for c in compiled)
maxdepth = max((len(c) for c in compiled), default=0)
hits = []; hit_limit = False; seen = set()
for d, dirs, files in os.walk(base):
    rel = os.path.relpath(d, base)
    parts = [] if rel == '.' else rel.split(os.sep)
    dirs[:] = [x for x in dirs if x not in IGNORED and not (DROP_LINKS and os.path.islink(os.path.join(d, x)))
               and (deep or len(parts) + 1 < maxdepth)]
    for f in files:
        fp = parts + [f]
        full = os.path.normpath(os.path.join(d, f))
        if full in seen or (DROP_LINKS and os.path.islink(full)) or not any(match(c, fp) for c in compiled): continue
        seen.add(full)
        try: m = os.stat(full).st_mtime_ns / 1e6
        except OSError:
            if not opt.get('zero_mtime'): continue
            m = 0
        if CAP and len(hits) >= CAP: hit_limit = True; break
        hits.append([full, m])
    if hit_limit: break
sys.stdout.write(json.dumps({'now': time.time() * 1000, 'hits': hits, 'hitLimit': hit_limit}))
