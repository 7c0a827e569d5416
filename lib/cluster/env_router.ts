/**
 * `pgs env serve --slurm`: one `pgs env serve` per node of a Slurm allocation (a job step on the node's address, with a
 * per-run token), and a router in front that serves the same HTTP API from one address. A new episode goes to the
 * node with the fewest open episodes (the next one when a node answers 429); its steps, finish, look and close go to
 * the node that holds it. A node whose step ended or whose connection failed is lost: its episodes answer 503
 * `node_lost` naming it, new episodes go to the others, and with none left every request answers 503.
 */
import { type Context, Hono } from "npm:hono@4.13.19";
import type { HttpApp } from "../base/http_app.ts";
import { SlurmAllocation, slurmAvailable, SlurmError, type SlurmStep } from "./slurm.ts";
import { nodeAddress, pgsArgv, sweepNode } from "./slurm_workers.ts";

/** The environment variable the node servers read the run's token from. */
export const ENV_NODE_TOKEN_ENV = "PGS_ENV_NODE_TOKEN";
/** What a node server prints on stdout once it listens (`pgs env serve --slurm-node`), then its URL. */
export const ENV_NODE_READY = "pgs-env-node ready ";
/** Ended episodes' ids remembered, so a late call on one reaches its node (which says how it ended). */
const ENDED_KEPT = 10_000;

/** One node's env server, as the router sees it. */
export interface EnvNode {
  /** The node's name (Slurm's). */
  name: string;
  /** Its env server's base URL (no trailing slash). */
  url: string;
  /** Why it is lost (its step ended, its connection failed), or undefined while it serves. */
  lost?: string;
  /** Called once when it is written off (stop its step); default nothing. */
  retire?: (reason: string) => void;
  /** Resolves with a reason when its process ends (its Slurm step); default never. */
  gone?: Promise<string>;
}

/** The router's settings. */
export interface EnvRouterOptions {
  /** The node servers. */
  nodes: EnvNode[];
  /** The token the trainer's requests carry (`--token-env`), checked here; default none. */
  token?: string;
  /** The run's token the node servers ask for (required). */
  nodeToken: string;
  /** Lines for the user (a node lost); default stderr. */
  onNote?: (line: string) => void;
}

/** The router's app and what it holds. */
export interface EnvRouter {
  /** The Hono app: serve it with `Deno.serve(router.app.fetch)`. */
  app: HttpApp;
  /** Open episodes per node, as the router counts them. */
  open(): Record<string, number>;
}

type Status = 400 | 401 | 404 | 429 | 500 | 503;
const errorBody = (type: string, message: string) => ({ error: { type, message } });

/** The node a lost episode was on, said to the trainer. */
function lostAnswer(c: Context, id: string, n: EnvNode): Response {
  return c.json(
    errorBody(
      "node_lost",
      `episode ${JSON.stringify(id)} was on node ${n.name}, which is lost (${n.lost}); the episode is gone: ` +
        "start a new one",
    ),
    503,
  );
}

/** Builds the router over `opts.nodes` (see the module's doc). */
export function createEnvRouter(opts: EnvRouterOptions): EnvRouter {
  const note = opts.onNote ?? ((l: string) => console.error(l));
  const where = new Map<string, EnvNode>(); // episode id → its node (open ones, and the last ended ones)
  const ended = new Set<string>();
  const open = new Map<EnvNode, Set<string>>(opts.nodes.map((n) => [n, new Set()]));
  const alive = () => opts.nodes.filter((n) => !n.lost);
  const placed = new Map<EnvNode, number>(opts.nodes.map((n) => [n, 0])); // when each last got an episode
  let placements = 0;

  const lose = (n: EnvNode, reason: string) => {
    if (n.lost) return;
    n.lost = reason;
    const held = open.get(n)!.size;
    note(
      `pgs env serve: node ${n.name} lost (${reason}): ${held} open episode(s) on it answer 503 node_lost; ` +
        `${alive().length} node(s) left`,
    );
    n.retire?.(reason);
  };
  for (const n of opts.nodes) n.gone?.then((why) => lose(n, why));

  const noneLeft = (c: Context) =>
    c.json(
      errorBody(
        "node_lost",
        `every node is lost (${opts.nodes.map((n) => `${n.name}: ${n.lost}`).join("; ")}); restart pgs env serve`,
      ),
      503,
    );

  /** Sends the request on to `n`; a connection that fails loses the node (answered undefined). */
  const forward = async (n: EnvNode, method: string, path: string, body?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.nodeToken}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      const res = await fetch(n.url + path, { method, headers, body });
      return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
    } catch (e) {
      lose(n, `its server at ${n.url} did not answer: ${(e as Error).message.split("\n")[0]}`);
      return undefined;
    }
  };
  const answer = (r: { status: number; text: string; type: string | null }) =>
    new Response(r.text, { status: r.status, headers: { "content-type": r.type ?? "application/json" } });
  const forget = (id: string, n: EnvNode) => {
    open.get(n)!.delete(id);
    ended.add(id);
    if (ended.size <= ENDED_KEPT) return;
    const oldest = ended.values().next().value!;
    ended.delete(oldest);
    where.delete(oldest);
  };

  const app = new Hono();
  app.onError((e, c) => c.json(errorBody("internal_error", (e as Error).message), 500));
  app.get("/v1/health", async (c) => {
    type NodeHealth = { node: string; episodes: number; warm?: number; lost?: string; error?: string };
    const nodes = await Promise.all(opts.nodes.map(async (n): Promise<NodeHealth> => {
      if (n.lost) return { node: n.name, episodes: open.get(n)!.size, lost: n.lost };
      const r = await forward(n, "GET", "/v1/health");
      if (!r) return { node: n.name, episodes: open.get(n)!.size, lost: n.lost };
      if (r.status !== 200) return { node: n.name, episodes: 0, error: `HTTP ${r.status}` };
      const h = JSON.parse(r.text) as { episodes: number; warm: number };
      return { node: n.name, episodes: h.episodes, warm: h.warm };
    }));
    const up = nodes.filter((n) => n.lost === undefined && n.error === undefined);
    const sum = (k: "episodes" | "warm") => up.reduce((s, n) => s + (n[k] ?? 0), 0);
    return c.json({ ok: up.length > 0, episodes: sum("episodes"), warm: sum("warm"), nodes });
  });
  app.use("/v1/*", async (c, next) => {
    if (opts.token && c.req.header("authorization") !== `Bearer ${opts.token}`) {
      const msg = "missing or wrong bearer token (Authorization: Bearer ...)";
      return c.json(errorBody("unauthorized", msg), 401 as Status);
    }
    await next();
  });
  app.get("/v1/profiles", async (c) => {
    for (const n of alive()) {
      const r = await forward(n, "GET", "/v1/profiles");
      if (r) return answer(r);
    }
    return noneLeft(c);
  });
  app.post("/v1/episodes", async (c) => {
    const body = await c.req.text();
    // Fewest open first, then the one that got an episode longest ago; a node at its bound (429) passes it on.
    const order = alive().sort((a, b) => open.get(a)!.size - open.get(b)!.size || placed.get(a)! - placed.get(b)!);
    let last: { status: number; text: string; type: string | null } | undefined;
    for (const n of order) {
      const r = await forward(n, "POST", "/v1/episodes", body);
      if (!r) continue;
      if (r.status === 429) {
        last = r;
        continue;
      }
      if (r.status !== 201) return answer(r);
      const ep = JSON.parse(r.text) as Record<string, unknown>;
      const id = String(ep.episode_id);
      where.set(id, n);
      open.get(n)!.add(id);
      placed.set(n, ++placements);
      return c.json({ ...ep, node: n.name }, 201);
    }
    return last ? answer(last) : noneLeft(c);
  });
  app.post("/v1/warm", async (c) => {
    // The boxes are split over the nodes left (a reset takes a box of its own node).
    const body = await c.req.text();
    const nodes = alive();
    if (!nodes.length) return noneLeft(c);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer((await forward(nodes[0], "POST", "/v1/warm", body)) ?? { status: 503, text: "", type: null });
    }
    const n = parsed.n ?? 1;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 1024) {
      return answer((await forward(nodes[0], "POST", "/v1/warm", body)) ?? { status: 503, text: "", type: null });
    }
    const shares = nodes.map((_, i) => Math.floor(n / nodes.length) + (i < n % nodes.length ? 1 : 0));
    const rs = await Promise.all(
      nodes.map((node, i) => forward(node, "POST", "/v1/warm", JSON.stringify({ ...parsed, n: shares[i] }))),
    );
    const ok = rs.filter((r) => r?.status === 202).map((r) => JSON.parse(r!.text) as Record<string, unknown>);
    if (!ok.length) {
      const bad = rs.find((r) => r);
      return bad ? answer(bad) : noneLeft(c);
    }
    const out: Record<string, unknown> = { ...ok[0] };
    for (const k of Object.keys(out)) {
      if (typeof out[k] === "number") out[k] = ok.reduce((s, o) => s + (Number(o[k]) || 0), 0);
    }
    return c.json(out, 202);
  });
  const routed = (method: string, suffix: string, ends: boolean) => async (c: Context) => {
    const id = c.req.param("id")!;
    const n = where.get(id);
    if (!n) return c.json(errorBody("not_found", `no episode ${JSON.stringify(id)}`), 404);
    if (n.lost) return lostAnswer(c, id, n);
    const body = method === "POST" ? await c.req.text() : undefined;
    const r = await forward(n, method, `/v1/episodes/${encodeURIComponent(id)}${suffix}`, body);
    if (!r) return lostAnswer(c, id, n);
    // Ended: finished or closed here, or ended there earlier (idle, or gone).
    if ((ends && r.status !== 409) || r.status === 404 || /"episode_ended"/.test(r.text)) forget(id, n);
    return answer(r);
  };
  app.get("/v1/episodes/:id", routed("GET", "", false));
  app.post("/v1/episodes/:id/step", routed("POST", "/step", false));
  app.post("/v1/episodes/:id/finish", routed("POST", "/finish", true));
  app.delete("/v1/episodes/:id", routed("DELETE", "", true));
  app.all("*", (c) =>
    c.json(
      errorBody(
        "not_found",
        `no route ${c.req.method} ${new URL(c.req.url).pathname} (see GET /v1/health, POST /v1/episodes, ` +
          "POST /v1/episodes/ID/step, POST /v1/episodes/ID/finish, DELETE /v1/episodes/ID, POST /v1/warm)",
      ),
      404,
    ));

  return {
    app,
    open: () => Object.fromEntries(opts.nodes.map((n) => [n.name, open.get(n)!.size])),
  };
}

/** What `startEnvNodes` starts. */
export interface EnvNodesOptions {
  /** Nodes to ask for outside a job (default 1; inside one, all of its nodes are used). */
  nodes?: number;
  /** Partition to ask for (default the cluster's). */
  partition?: string;
  /** Time limit to ask for, as salloc takes it (default the partition's). */
  time?: string;
  /** `pgs env serve`'s own flags for every node (settings only: no host, port, token or --slurm). */
  serveArgs: string[];
  /** Lines for the user; default stderr. */
  onNote?: (line: string) => void;
  /** How long a node server may take to print its ready line (default 120 s). */
  readyMs?: number;
}

/** The node servers, their allocation and the run's token. */
export interface EnvNodes {
  /** The node servers that started. */
  nodes: EnvNode[];
  /** The allocation they run in. */
  allocation: SlurmAllocation;
  /** The token they ask for. */
  token: string;
  /** Stops every node server (they remove their boxes) and releases the allocation if pgs asked for it. */
  close(): Promise<void>;
}

/**
 * Starts `pgs env serve` on every node of the allocation (SLURM_JOB_ID's, else a new one of `opts.nodes` nodes):
 * throws when Slurm is not usable or none starts; goes on with the ones that did, saying which did not.
 */
export async function startEnvNodes(opts: EnvNodesOptions): Promise<EnvNodes> {
  const absent = await slurmAvailable();
  if (absent) throw new SlurmError("--slurm", absent);
  const allocation = Deno.env.get("SLURM_JOB_ID")
    ? SlurmAllocation.attach()
    : await SlurmAllocation.request({ nodes: opts.nodes ?? 1, partition: opts.partition, time: opts.time });
  const note = opts.onNote ?? ((l: string) => console.error(l));
  const retiring: Promise<void>[] = [];
  const close = async () => {
    await Promise.all(retiring); // sweeps of lost nodes run in the allocation: they end before it is released
    await allocation.release(8_000);
  };
  try {
    const token = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
    const names = await allocation.aliveNodes();
    const started = await Promise.allSettled(
      names.map((n) => startNode(allocation, n, token, opts, (p) => retiring.push(p))),
    );
    const nodes: EnvNode[] = [];
    const failed: string[] = [];
    started.forEach((r, i) => {
      if (r.status === "fulfilled") nodes.push(r.value);
      else failed.push(`${names[i]}: ${(r.reason as Error).message}`);
    });
    if (!nodes.length) {
      throw new SlurmError(
        `job ${allocation.jobId}`,
        `no node server started (${failed.join("; ") || "no node alive"})`,
      );
    }
    for (const f of failed) note(`pgs env serve: the server on ${f}; serving with ${nodes.length} node(s)`);
    return { nodes, allocation, token, close };
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
}

/** The `--runtime` of `pgs env serve`'s flags, if given. */
function runtimeOf(serveArgs: string[]): string | undefined {
  const i = serveArgs.indexOf("--runtime");
  return i >= 0 ? serveArgs[i + 1] : serveArgs.find((a) => a.startsWith("--runtime="))?.slice("--runtime=".length);
}

async function startNode(
  a: SlurmAllocation,
  node: string,
  token: string,
  opts: EnvNodesOptions,
  onRetire: (done: Promise<void>) => void,
): Promise<EnvNode> {
  const host = await nodeAddress(node);
  const argv = [
    ...pgsArgv(),
    "env",
    "serve",
    ...opts.serveArgs,
    "--slurm-node",
    "--host",
    host,
    "--port",
    "0",
    "--token-env",
    ENV_NODE_TOKEN_ENV,
  ];
  const step: SlurmStep = a.startStep(node, argv, { [ENV_NODE_TOKEN_ENV]: token });
  try {
    const line = await step.readyLine(ENV_NODE_READY, opts.readyMs ?? 120_000);
    const url = line.slice(ENV_NODE_READY.length).split(" ")[0].replace(/\/+$/, "");
    const gone = step.exited.then((x) => {
      const how = x.signal ? `signal ${x.signal}` : `code ${x.code}`;
      const tail = step.stderrTail(2);
      return `its step ${step.stepId ?? "?"} ended (${how})${tail ? `: ${tail}` : ""}`;
    });
    // A server that is written off is stopped; one `scancel` killed outright left its boxes, which a sweep removes.
    const retire = () =>
      onRetire((async () => {
        await step.stop(5_000).catch(() => undefined);
        await sweepNode(a, node, runtimeOf(opts.serveArgs)).catch(() => undefined);
      })());
    return { name: node, url, gone, retire };
  } catch (e) {
    await step.stop(2_000).catch(() => undefined);
    throw e;
  }
}
