/** A trajectory record for unit tests: a passing two-turn pi episode, with `p` laid over it. */
import { type Trajectory, TRAJECTORY_FORMAT } from "../lib/eval/records/trajectory.ts";

/** A record of row `row_id`, sample `sample`; everything else defaults to a passing pi episode. */
export function traj(p: Partial<Trajectory> & { row_id: string; sample: number }): Trajectory {
  return {
    format: TRAJECTORY_FORMAT,
    id: `${p.row_id}/${p.sample}`,
    task: p.task ?? `task-${p.row_id}`,
    task_dir: `/tasks/${p.row_id}`,
    profile: "pi@0.73.1",
    profile_key: "pi",
    policy: "script",
    messages: [],
    tools: [],
    chat_template_kwargs: {},
    answer: "",
    reward: 1,
    metrics: {},
    exit_status: "stop_rule",
    turns: 2,
    counters: { tool_calls: 1, format_errors: 0, unknown_tools: 0 },
    timings: { start_ms: 400, policy_ms: 10, tools_ms: 20, verify_ms: 500, total_ms: 1000 },
    docker_host: "default",
    started_at: "",
    ended_at: "",
    ...p,
  };
}
