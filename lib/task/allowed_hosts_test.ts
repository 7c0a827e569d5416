/** allowed_hosts entries as Harbor's `_validate_allowed_host_names` takes or refuses them. */
import assert from "node:assert/strict";
import { normalizeAllowedHosts } from "./allowed_hosts.ts";

const ok = (h: string) => {
  const r = normalizeAllowedHosts([h]);
  assert.ok("hosts" in r, `${h}: ${"error" in r ? r.error : ""}`);
  return r.hosts[0];
};
const refused = (h: string) => {
  const r = normalizeAllowedHosts([h]);
  assert.ok("error" in r, `${h} was accepted as ${"hosts" in r ? r.hosts[0] : ""}`);
  return r.error;
};

Deno.test("allowed_hosts: hostnames and wildcards, lowercased, the trailing dot dropped", () => {
  assert.equal(ok("Example.COM."), "example.com");
  assert.equal(ok("  api.example.com "), "api.example.com");
  assert.equal(ok("*.example.com"), "*.example.com");
  assert.equal(ok("192.0.2.1"), "192.0.2.1");
  assert.match(refused("*."), /leading/); // its dot is dropped first, as in Harbor
  assert.match(refused("*.192.0.2.1"), /must target hostnames, not IP address literals/);
  assert.match(refused("api.*.example.com"), /must use a leading '\*\.' prefix/);
  assert.match(refused("exa_mple.com"), /valid hostnames/);
  assert.match(refused("-x.com"), /valid hostnames/);
  assert.match(refused(""), /must be non-empty hostnames/);
});

Deno.test("allowed_hosts: IP addresses and CIDRs as Python's ipaddress reads them; never URLs, ports or scopes", () => {
  assert.equal(ok("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
  assert.equal(ok("::ffff:192.0.2.1"), "::ffff:c000:201");
  assert.equal(ok("2001:db8:0:1:0:0:0:0"), "2001:db8:0:1::");
  assert.equal(ok("192.0.2.0/24"), "192.0.2.0/24");
  assert.equal(ok("10.0.0.0/255.0.0.0"), "10.0.0.0/8");
  assert.equal(ok("2001:db8::/32"), "2001:db8::/32");
  for (
    const bad of ["192.0.2.1/24", "2001:db8::1/32", "http://example.com", "example.com:443", "fe80::1%eth0", "[::1]"]
  ) {
    assert.match(refused(bad), /not URLs, ports, or paths/, bad);
  }
  assert.match(refused("example.com/path"), /not URLs, ports, or paths/);
});
