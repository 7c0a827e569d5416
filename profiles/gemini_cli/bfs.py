
# bfsFileSearchSync (gemini-cli 0.61.0, utils/bfsFileSearch.js): breadth first from a root, directories in
# readdir order, at most MAX directories scanned; prints the files named NAME, NUL-separated. Symlinks are
# neither files nor directories there (Dirent), and .git is ignored as gemini's file service ignores it.
import os, sys
root, name, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
queue, seen, scanned, found = [root], set(), 0, []
while queue and scanned < cap:
    d = queue.pop(0)
    if d in seen: continue
    seen.add(d); scanned += 1
    try: entries = list(os.scandir(d))
    except OSError: continue
    for e in entries:
        full = os.path.join(d, e.name)
        if e.is_dir(follow_symlinks=False):
            if e.name != '.git': queue.append(full)
        elif e.is_file(follow_symlinks=False) and e.name == name:
            found.append(full)
sys.stdout.write(''.join(f + '\0' for f in found))
