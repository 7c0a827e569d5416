/**
 * Harbor conformance cases from tests/unit/models/test_task_config_mcp.py: `[[environment.mcp_servers]]` entries,
 * which need a `url` (sse, streamable-http, alias http) or a `command` (stdio) and a known transport. pgs accepts
 * them (without applying them, warned) and must refuse the entries Harbor refuses.
 */
import { type Case, cite } from "./types.ts";
import { LEGACY_TOML } from "./task_config_small.ts";

const F = "models/test_task_config_mcp.py";

/** A task with one `[[environment.mcp_servers]]` entry made of `lines`. */
function server(...lines: string[]): string {
  return `version = "1.0"\n\n[[environment.mcp_servers]]\n${lines.join("\n")}\n`;
}

export const CASES: Case[] = [
  {
    id: "sse-needs-url",
    cite: cite(F, "TestMCPServerConfig::test_sse_transport_requires_url"),
    toml: server('name = "test"', 'transport = "sse"'),
    expect: { refused: /mcp_servers|url/ },
  },
  {
    id: "streamable-http-needs-url",
    cite: cite(F, "TestMCPServerConfig::test_streamable_http_transport_requires_url"),
    toml: server('name = "test"', 'transport = "streamable-http"'),
    expect: { refused: /mcp_servers|url/ },
  },
  {
    id: "stdio-needs-command",
    cite: cite(F, "TestMCPServerConfig::test_stdio_transport_requires_command"),
    toml: server('name = "test"', 'transport = "stdio"'),
    expect: { refused: /mcp_servers|command/ },
  },
  {
    id: "sse-with-url",
    cite: cite(F, "TestMCPServerConfig::test_sse_transport_with_url"),
    toml: server('name = "my-server"', 'transport = "sse"', 'url = "http://localhost:8000/sse"'),
    expect: { accepted: true, warns: /mcp_servers/ },
  },
  {
    id: "streamable-http-with-url",
    cite: cite(F, "TestMCPServerConfig::test_streamable_http_transport_with_url"),
    toml: server('name = "my-server"', 'transport = "streamable-http"', 'url = "http://localhost:8000/mcp"'),
    expect: { accepted: true },
  },
  {
    id: "http-alias",
    cite: cite(F, "TestMCPServerConfig::test_http_transport_alias"),
    toml: server('name = "my-server"', 'transport = "http"', 'url = "http://localhost:8000/mcp"'),
    expect: { accepted: true },
  },
  {
    id: "unknown-transport",
    cite: cite(F, "TestMCPServerConfig::test_invalid_transport_rejected"),
    toml: server('name = "my-server"', 'transport = "streamable_http"', 'url = "http://localhost:8000/mcp"'),
    expect: { refused: /mcp_servers|transport/ },
  },
  {
    id: "stdio-with-command",
    cite: cite(F, "TestMCPServerConfig::test_stdio_transport_with_command"),
    toml: server('name = "my-server"', 'transport = "stdio"', 'command = "npx"', 'args = ["-y", "my-mcp-server"]'),
    expect: { accepted: true },
  },
  {
    id: "default-transport-sse",
    cite: cite(F, "TestMCPServerConfig::test_default_transport_is_sse"),
    toml: server('name = "test"', 'url = "http://localhost:8000/sse"'),
    expect: { accepted: true },
  },
  {
    // The default transport is sse, which needs a url: a server with neither is refused.
    id: "default-transport-needs-url",
    cite: cite(F, "TestMCPServerConfig::test_default_transport_is_sse"),
    toml: server('name = "test"', 'command = "npx"'),
    expect: { refused: /mcp_servers|url/ },
  },
  {
    id: "default-args",
    cite: cite(F, "TestMCPServerConfig::test_default_args"),
    toml: server('name = "test"', 'url = "http://localhost:8000/sse"'),
    expect: { accepted: true },
  },
  {
    id: "no-servers",
    cite: cite(F, "TestTaskConfigMCPServers::test_no_mcp_servers_defaults_to_empty_list"),
    toml: 'version = "1.0"\n',
    expect: { accepted: true },
  },
  {
    id: "one-server",
    cite: cite(F, "TestTaskConfigMCPServers::test_single_mcp_server"),
    toml: server('name = "mcp-server"', 'transport = "sse"', 'url = "http://mcp-server:8000/sse"'),
    expect: { accepted: true, warns: /mcp_servers/ },
  },
  {
    id: "two-servers",
    cite: cite(F, "TestTaskConfigMCPServers::test_multiple_mcp_servers"),
    toml: server('name = "server-a"', 'transport = "sse"', 'url = "http://server-a:8000/sse"') +
      '\n[[environment.mcp_servers]]\nname = "server-b"\ntransport = "stdio"\ncommand = "npx"\n' +
      'args = ["-y", "server-b"]\n',
    expect: { accepted: true },
  },
  {
    id: "legacy-task",
    cite: cite(F, "TestTaskConfigMCPServers::test_backwards_compatibility"),
    toml: LEGACY_TOML,
    expect: { accepted: true, check: { "config.verifier.timeoutSec": 300, "config.environment.cpus": 2 } },
  },
];
