/**
 * A headless Chromium (Debian's package) driven over the DevTools protocol with Deno's own WebSocket: open a page,
 * evaluate an expression in it, wait for a condition, click, take a screenshot. No browser download, no npm driver.
 * Without Chromium the browser tests are ignored with a note, except under CI (`CI=true`), where they fail.
 */
import { join } from "node:path";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium binary, if installed. */
export const CHROMIUM: string | undefined = Deno.env.get("PGS_CHROMIUM") ??
  CANDIDATES.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });

const inCI = Deno.env.get("CI") === "true";
/** True when browser tests are ignored: no Chromium, outside CI. */
export const ignoreBrowser = !CHROMIUM && !inCI;
if (ignoreBrowser) console.error("note: browser tests ignored, no Chromium (apt-get install chromium)");

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
}

/** One page of a headless Chromium. */
export class Browser {
  #ws!: WebSocket;
  #id = 0;
  #pending = new Map<number, Pending>();
  #session = "";
  #proc!: Deno.ChildProcess;
  #profile = "";
  /** Uncaught exceptions and console errors of the page, as they came. */
  readonly errors: string[] = [];

  /** Starts Chromium and opens a blank page. */
  static async launch(): Promise<Browser> {
    if (!CHROMIUM) throw new Error("no Chromium: apt-get install chromium (CI installs it)");
    const b = new Browser();
    b.#profile = await Deno.makeTempDir({ prefix: "pgs_chromium_" });
    // As root in a container Chromium needs --no-sandbox; the network flags keep it from calling home (refused here).
    b.#proc = new Deno.Command(CHROMIUM, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--allow-file-access-from-files",
        "--remote-debugging-port=0",
        `--user-data-dir=${b.#profile}`,
        "--window-size=1400,1000",
        "about:blank",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const url = await b.#devtoolsUrl();
    b.#ws = new WebSocket(url);
    await new Promise<void>((res, rej) => {
      b.#ws.onopen = () => res();
      b.#ws.onerror = () => rej(new Error(`cannot connect to ${url}`));
    });
    b.#ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data));
      if (msg.method === "Runtime.exceptionThrown") {
        const d = msg.params.exceptionDetails;
        b.errors.push(`${d.exception?.description ?? d.text} (line ${d.lineNumber + 1})`);
      } else if (msg.method === "Runtime.consoleAPICalled" && msg.params.type === "error") {
        b.errors.push(
          msg.params.args.map((a: { value?: unknown; description?: string }) => a.value ?? a.description).join(" "),
        );
      }
      const p = msg.id !== undefined ? b.#pending.get(msg.id) : undefined;
      if (!p) return;
      b.#pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${msg.error.message} ${msg.error.data ?? ""}`));
      else p.resolve(msg.result ?? {});
    };
    const { targetId } = await b.#send("Target.createTarget", { url: "about:blank" }, false);
    const { sessionId } = await b.#send("Target.attachToTarget", { targetId, flatten: true }, false);
    b.#session = String(sessionId);
    await b.#send("Page.enable", {});
    await b.#send("Runtime.enable", {});
    return b;
  }

  async #devtoolsUrl(): Promise<string> {
    const reader = this.#proc.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
      const m = seen.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) {
        // Keep draining stderr so Chromium never blocks on a full pipe.
        (async () => {
          try {
            while (!(await reader.read()).done) { /* drain */ }
          } catch { /* closed */ }
        })();
        return m[1];
      }
    }
    throw new Error(`Chromium did not start: ${seen.slice(-500)}`);
  }

  #send(method: string, params: Record<string, unknown>, inPage = true): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    const msg: Record<string, unknown> = { id, method, params };
    if (inPage) msg.sessionId = this.#session;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method}: no answer in 30 s`));
      }, 30_000);
      this.#pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.#ws.send(JSON.stringify(msg));
    });
  }

  /** Opens `url` and waits for its load event. */
  async goto(url: string): Promise<void> {
    await this.#send("Page.navigate", { url });
    await this.waitFor("document.readyState === 'complete'");
  }

  /** The value of `expression` in the page (awaited; exceptions become errors). */
  async eval<T = unknown>(expression: string): Promise<T> {
    const r = await this.#send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    const ex = r.exceptionDetails as { exception?: { description?: string }; text?: string } | undefined;
    if (ex) throw new Error(`in the page: ${ex.exception?.description ?? ex.text}`);
    return (r.result as { value: T }).value;
  }

  /** Waits until `expression` is truthy in the page (polled every 50 ms, at most `ms`). */
  async waitFor(expression: string, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await this.eval<boolean>(`!!(${expression})`).catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${expression}`);
  }

  /** Clicks the first element matching `selector` (a real mouse event at its centre). */
  async click(selector: string): Promise<void> {
    const box = await this.eval<{ x: number; y: number } | null>(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return null;
      el.scrollIntoView({ block: "center" });
      const r = el.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
    if (!box) throw new Error(`no element ${selector}`);
    for (const type of ["mousePressed", "mouseReleased"]) {
      await this.#send("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
    }
  }

  /** Picks `value` in the `<select>` matching `selector`, as a user would (a change event follows). */
  async select(selector: string, value: string): Promise<void> {
    await this.eval(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      el.value = ${JSON.stringify(value)};
      el.dispatchEvent(new Event("change", { bubbles: true }));
    })()`);
  }

  /** A PNG of the viewport (or the whole page), written to `dir/name.png`; returns its bytes. */
  async screenshot(dir: string, name: string, fullPage = false): Promise<Uint8Array> {
    const size = fullPage
      ? await this.eval<{ w: number; h: number }>(
        "({ w: document.documentElement.scrollWidth, h: Math.min(document.documentElement.scrollHeight, 8000) })",
      )
      : undefined;
    const r = await this.#send("Page.captureScreenshot", {
      format: "png",
      ...(size ? { captureBeyondViewport: true, clip: { x: 0, y: 0, width: size.w, height: size.h, scale: 1 } } : {}),
    });
    const bytes = Uint8Array.from(atob(String(r.data)), (c) => c.charCodeAt(0));
    await Deno.writeFile(join(dir, `${name}.png`), bytes);
    return bytes;
  }

  /** Stops Chromium and removes its profile. */
  async close(): Promise<void> {
    try {
      this.#ws.close();
    } catch { /* already closed */ }
    try {
      this.#proc.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.#proc.status;
    await this.#proc.stderr.cancel().catch(() => {});
    await Deno.remove(this.#profile, { recursive: true }).catch(() => {});
  }
}

/** Where screenshots go: PGS_SCREENSHOTS when set (made if need be), else a new temporary folder. */
export async function shots(): Promise<string> {
  const dir = Deno.env.get("PGS_SCREENSHOTS");
  if (!dir) return await Deno.makeTempDir({ prefix: "pgs_viewer_shots_" });
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}

/** A screenshot that shows something (a blank 1400×1000 page is about 6 kB of PNG); throws otherwise. */
export async function shot(b: Browser, dir: string, name: string): Promise<void> {
  const png = await b.screenshot(dir, name);
  if (png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47) throw new Error(`${name}: not a PNG`);
  if (png.length <= 20_000) throw new Error(`${name}: ${png.length} bytes, a blank page?`);
}

/** The viewer's "N of M episodes" line. */
export const countText = (b: Browser): Promise<string> =>
  b.eval<string>("document.getElementById('count')?.textContent ?? ''");
