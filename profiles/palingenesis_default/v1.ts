/**
 * palingenesis-default@1: HarborEnv's own dialect, byte-identical to its design's table: bash, read_file, write_file,
 * str_replace, submit; the episode ends at submit and the answer is the last assistant text.
 */
import { OpError, read, replace, write } from "../../lib/harness/tools/ops.ts";
import { headTailChars } from "../../lib/harness/tools/truncate.ts";
import { fnSchema, type HarnessProfile } from "../../lib/harness/types.ts";
import { DEFAULT_SYSTEM_PROMPT } from "./prompt.ts";

const str = (v: unknown) => typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
const READ_LIMIT = 200_000;

/** The profile. */
export function palingenesisDefaultV1(): HarnessProfile {
  return {
    name: "palingenesis-default",
    version: "1",
    system: DEFAULT_SYSTEM_PROMPT.replace("/workdir", "{workdir}"),
    user: "{instruction}",
    protocol: { kind: "native" },
    stop: { kind: "submit", tool: "submit", confirm: false },
    answer: { kind: "last_text" },
    // The words of its own cut.
    truncationMark: String.raw`\[\.\.\. \d+ characters cut \.\.\.\]`,
    execTimeout: 60,
    shell: { tool: "bash", arg: "command" },
    // HarborEnv's own dialect: its design lets a caller narrow its tools and send a row's first messages as given.
    capabilities: { toolSubset: true, rowMessages: true },
    emulates: {
      harness: "palingenesis HarborEnv",
      version: "1",
      sources: ["pgs: HarborEnv's own dialect, as the HarborEnv design's table gives it (docs/spec-notes.md)"],
    },
    tools: [
      {
        schema: fnSchema("bash", "Run a bash command in the working directory.", {
          command: { type: "string", description: "The command." },
          timeout: { type: "integer", description: "Seconds (default 60)." },
        }, ["command"]),
        async bind(s, a) {
          const timeout = Number(a.timeout) > 0 ? Number(a.timeout) : 60;
          const r = await s.exec(str(a.command), { timeout, shell: "bash" });
          let out = `[exit code ${r.exitCode}]\n${r.stdout}`;
          if (r.stderr) out += `${r.stdout && !r.stdout.endsWith("\n") ? "\n" : ""}[stderr]\n${r.stderr}`;
          const half = Math.floor(s.maxOutput / 2);
          return headTailChars(out, half, s.maxOutput - half, (cut) => `\n[... ${cut} characters cut ...]\n`);
        },
      },
      {
        schema: fnSchema("read_file", "Read a text file.", { path: { type: "string", description: "The file." } }, [
          "path",
        ]),
        async bind(s, a) {
          const path = str(a.path);
          try {
            return (await read(s.box, s.abspath(path))).slice(0, READ_LIMIT);
          } catch (e) {
            if (e instanceof OpError) return `Error: cannot read '${path}'`;
            throw e;
          }
        },
      },
      {
        schema: fnSchema("write_file", "Create or overwrite a file.", {
          path: { type: "string", description: "The file." },
          content: { type: "string", description: "The whole new content." },
        }, ["path", "content"]),
        async bind(s, a) {
          const path = str(a.path);
          try {
            await write(s.box, s.abspath(path), str(a.content));
            return `Wrote ${path}.`;
          } catch (e) {
            if (e instanceof OpError) return `Error: cannot write '${path}'`;
            throw e;
          }
        },
      },
      {
        schema: fnSchema("str_replace", "Replace exact text that occurs exactly once in a file.", {
          path: { type: "string", description: "The file." },
          old: { type: "string", description: "The exact text to replace." },
          new: { type: "string", description: "The replacement." },
        }, ["path", "old", "new"]),
        async bind(s, a) {
          const path = str(a.path);
          try {
            await replace(s.box, s.abspath(path), str(a.old), str(a.new));
            return `Edited ${path}.`;
          } catch (e) {
            if (!(e instanceof OpError)) throw e;
            if (e.kind === "multiple") {
              return `Error: the text occurs ${e.data.count} times in ${path}; it must occur exactly once`;
            }
            if (e.kind === "no_match" || e.kind === "empty_old") {
              return `Error: the text occurs 0 times in ${path}; it must occur exactly once`;
            }
            if (e.kind === "identical") return `Edited ${path}.`;
            return `Error: cannot read '${path}'`;
          }
        },
      },
      {
        schema: fnSchema("submit", "End the episode.", {}, []),
        bind: () => Promise.resolve(""),
      },
    ],
  };
}
