/**
 * `allowed_hosts` entries checked and normalized as Harbor's task model does (wrongbutworks/harbor@39b85872:
 * src/harbor/models/task/config.py, `_validate_allowed_host_names`): hostnames and leading `*.` wildcards (lowercase,
 * a trailing dot dropped), IP addresses and CIDR ranges with no host bits set (IPv6 in its compressed form); never a
 * URL, a port, a path, brackets or a scoped address. Each failure is Harbor's own sentence.
 */

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NOT_URL = "allowed_hosts entries must be hostnames, IP addresses, or IP CIDR ranges, not URLs, ports, or paths.";

/** The entries normalized, or the first one's error (Harbor's words). */
export function normalizeAllowedHosts(hosts: string[]): { hosts: string[] } | { error: string } {
  const out: string[] = [];
  for (const raw of hosts) {
    const host = raw.trim().toLowerCase().replace(/\.+$/, "");
    if (!host) return { error: "allowed_hosts entries must be non-empty hostnames." };
    if (host.includes("/")) {
      const net = host.includes("%") ? undefined : ipNetwork(host);
      if (!net) return { error: NOT_URL };
      out.push(net);
      continue;
    }
    if (host.includes(":")) {
      const v6 = host.includes("%") ? undefined : ipv6(host);
      if (!v6) return { error: NOT_URL };
      out.push(compress6(v6));
      continue;
    }
    if (host.includes("[") || host.includes("]")) return { error: NOT_URL };
    let name = host;
    if (host.startsWith("*.")) {
      name = host.slice(2);
      if (!name) return { error: "allowed_hosts wildcard entries must include a hostname suffix." };
      if (ipv4(name)) {
        return { error: "allowed_hosts wildcard entries must target hostnames, not IP address literals." };
      }
    } else if (host.includes("*")) return { error: "allowed_hosts wildcard entries must use a leading '*.' prefix." };
    if (!name.split(".").every((l) => LABEL.test(l))) {
      return {
        error: "allowed_hosts entries must be IP addresses, IP CIDR ranges, or valid hostnames or leading wildcard " +
          "host patterns containing only letters, digits, hyphens, and dots.",
      };
    }
    out.push(host);
  }
  return { hosts: out };
}

/** An IPv4 address as four octets (Python's rules: decimal, no leading zeros), else undefined. */
function ipv4(s: string): number[] | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const octets = parts.map((p) => /^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

/** An IPv6 address as eight 16-bit groups (`::` and a trailing IPv4 allowed), else undefined. */
function ipv6(s: string): number[] | undefined {
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      if (i === items.length - 1 && it.includes(".")) {
        const v4 = ipv4(it);
        if (!v4) return undefined;
        out.push(v4[0] * 256 + v4[1], v4[2] * 256 + v4[3]);
      } else if (/^[0-9a-f]{1,4}$/.test(it)) out.push(parseInt(it, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const fill = 8 - head.length - tail.length;
  return fill >= 1 ? [...head, ...Array(fill).fill(0), ...tail] : undefined;
}

/** RFC 5952's text (Python's `compressed`): the longest run of two or more zero groups, leftmost first, as `::`. */
function compress6(g: number[]): string {
  let best = -1, len = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > len && j - i >= 2) [best, len] = [i, j - i];
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + len).join(":")}`;
}

/** A CIDR range with no host bits set (Python's `ip_network(strict=True)`), compressed; undefined otherwise. */
function ipNetwork(s: string): string | undefined {
  const [addr, prefix, ...rest] = s.split("/");
  if (rest.length || prefix === undefined) return undefined;
  const v4 = ipv4(addr);
  const bits = v4 ? 32 : 128;
  const groups = v4 ? undefined : ipv6(addr);
  if (!v4 && !groups) return undefined;
  let n: number | undefined;
  if (/^\d{1,3}$/.test(prefix)) n = Number(prefix);
  else if (v4) n = netmaskLength(prefix);
  if (n === undefined || n > bits) return undefined;
  // Host bits: every bit past the prefix must be zero.
  const words = v4 ? v4.map((o) => ({ v: o, w: 8 })) : groups!.map((x) => ({ v: x, w: 16 }));
  let at = 0;
  for (const { v, w } of words) {
    const keep = Math.max(0, Math.min(w, n - at));
    if ((v & ((1 << (w - keep)) - 1)) !== 0) return undefined;
    at += w;
  }
  return `${v4 ? v4.join(".") : compress6(groups!)}/${n}`;
}

/** A dotted IPv4 netmask's prefix length (`255.255.0.0` → 16), else undefined. */
function netmaskLength(s: string): number | undefined {
  const o = ipv4(s);
  if (!o) return undefined;
  const bin = o.map((x) => x.toString(2).padStart(8, "0")).join("");
  return /^1*0*$/.test(bin) ? bin.indexOf("0") < 0 ? 32 : bin.indexOf("0") : undefined;
}
