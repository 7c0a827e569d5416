
# run_shell_command's process (gemini-cli 0.61.0, ShellTool.execute and ShellExecutionService's child_process
# path). CMD is wrapped as gemini wraps it (promptvars guard, the subshell whose EXIT trap lists background jobs
# into a gemini-shell-XXXXXX temp folder) and run as `bash -c` in a new session (its pid is the process group id
# gemini reports), stdin /dev/null, stdout and stderr into one pipe in the order written, read until the pipe
# closes and the shell has exited (node's 'close'). No output for IDLE seconds cancels it (the inactivity
# timeout): SIGTERM to the group, SIGKILL after 200 ms. The last CAP bytes are kept. With BG_MS >= 0 the command
# is left running (output to a log in its temp folder) and the launcher returns after BG_MS milliseconds.
# stdout: the output; stderr: one JSON line {pid, code, signal, aborted, truncated, error, bgpids}.
import json, os, random, select, shutil, signal, string, sys, tempfile, time
cmd, cwd, idle, cap, extra, bg_ms = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
meta = {'pid': None, 'code': None, 'signal': None, 'aborted': False, 'truncated': False, 'error': None, 'bgpids': ''}
bash = shutil.which('bash') or '/bin/bash'
env = dict(os.environ); env.update(json.loads(extra))
tmp = os.path.join(tempfile.gettempdir(), 'gemini-shell-' + ''.join(random.choice(string.ascii_letters + string.digits) for _ in range(6)))
os.makedirs(tmp, exist_ok=True)
bgfile = os.path.join(tmp, 'bgpids.tmp')
body = cmd.strip()
if body.endswith('\\'): body += ' '
wrapped = ("shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=%s\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n%s\n)\n__code=$?\nexit $__code" % (bgfile, body))
def done():
    if bg_ms < 0: shutil.rmtree(tmp, ignore_errors=True)
    sys.stderr.write(json.dumps(meta)); sys.exit(0)
if not os.path.isdir(cwd):
    meta['error'] = 'spawn %s ENOENT' % bash
    done()
r, w = os.pipe()
if bg_ms >= 0:
    os.close(r); w = os.open(os.path.join(tmp, 'output.log'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
pid = os.fork()
if pid == 0:
    try:
        os.setsid(); os.chdir(cwd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0); os.dup2(w, 1); os.dup2(w, 2)
        if bg_ms < 0: os.close(r)
        os.close(w)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.execve(bash, [bash, '-c', wrapped], env)
    finally:
        os._exit(127)
os.close(w)
meta['pid'] = pid
if bg_ms >= 0:
    time.sleep(bg_ms / 1000.0)
    done()
buf = bytearray(); last = time.time(); status = None; eof = False
while True:
    if status is None:
        got, st = os.waitpid(pid, os.WNOHANG)
        if got: status = st
    if eof and status is not None: break
    if time.time() - last > idle:
        meta['aborted'] = True; idle = float('inf')
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try: os.killpg(pid, sig)
            except OSError: pass
            time.sleep(0.2)
    if eof:
        time.sleep(0.05); continue
    ready, _, _ = select.select([r], [], [], 0.2)
    if not ready: continue
    chunk = os.read(r, 65536)
    if not chunk:
        eof = True; continue
    buf += chunk; last = time.time()
    if len(buf) > cap:
        del buf[:len(buf) - cap]; meta['truncated'] = True
if os.WIFSIGNALED(status): meta['signal'] = os.WTERMSIG(status)
else: meta['code'] = os.WEXITSTATUS(status)
try:
    with open(bgfile) as f: meta['bgpids'] = f.read()
except OSError: pass
sys.stdout.buffer.write(bytes(buf)); sys.stdout.flush()
done()
