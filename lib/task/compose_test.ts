/** Compose files as Harbor reads them: every accepted form, every refusal, schema errors, in one line each. */
import assert from "node:assert/strict";
import { parseCompose } from "./compose.ts";
import { harborComposeVars } from "./compose_interpolate.ts";

const FILE = "/t/environment/docker-compose.yaml";
const parse = (text: string, env = {}) => parseCompose(text, FILE, { env });
const svc = (body: string) => parse(`services:\n  web:\n    image: x\n${body}`).services.web;
const refusal = (text: string) => {
  try {
    parse(text);
  } catch (e) {
    assert.equal((e as Error).name, "TaskError");
    return (e as Error).message;
  }
  assert.fail("not refused");
};

Deno.test("parseCompose: the defaults of a bare service", () => {
  const m = parse("services:\n  web:\n    image: busybox\n");
  assert.deepEqual(m.services.web, {
    name: "web",
    image: "busybox",
    build: undefined,
    command: undefined,
    entrypoint: undefined,
    environment: {},
    envFiles: [],
    workingDir: undefined,
    user: undefined,
    healthcheck: undefined,
    dependsOn: {},
    volumes: [],
    tmpfs: [],
    init: false,
    pullPolicy: "missing",
    cpus: undefined,
    memoryBytes: undefined,
    pids: undefined,
    stopGracePeriodMs: 10_000,
    aliases: [],
    ignored: [],
  });
  assert.deepEqual([m.mainFields, m.volumes, m.startOrder, m.inactive, m.unsetVariables], [[], [], ["web"], [], []]);
});

Deno.test("parseCompose: build, string and long forms", () => {
  assert.deepEqual(parse("services:\n  web:\n    build: ./web\n").services.web.build, {
    context: "/t/environment/web",
    dockerfile: "Dockerfile",
    args: {},
  });
  const b = parse(
    "services:\n  web:\n    build:\n      context: ..\n      dockerfile: environment/D\n      target: dev\n" +
      '      args: ["A=1", "B", "C"]\n',
    { os: { B: "b" } },
  ).services.web.build;
  assert.deepEqual(b, { context: "/t", dockerfile: "environment/D", args: { A: "1", B: "b" }, target: "dev" });
});

Deno.test("parseCompose: command, entrypoint, environment, env_file, user, working_dir", () => {
  const s = svc(
    `    command: python3 -m http.server "8000"\n    entrypoint: []\n    user: "1000:1000"\n    working_dir: /srv\n` +
      `    environment:\n      - A=1\n      - B\n      - C=\n    env_file: [web.env, {path: ../x.env, required: false}]\n`,
  );
  assert.deepEqual(s.command, ["python3", "-m", "http.server", "8000"]);
  assert.deepEqual(s.entrypoint, []);
  assert.deepEqual([s.user, s.workingDir], ["1000:1000", "/srv"]);
  assert.deepEqual(s.environment, { A: "1", C: "" });
  assert.deepEqual(s.envFiles, [{ path: "/t/environment/web.env", required: true }, {
    path: "/t/x.env",
    required: false,
  }]);
  const map = parse("services:\n  web:\n    image: x\n    environment:\n      A: 1\n      B: true\n      C:\n", {
    task: { C: "from-task" },
  }).services.web.environment;
  assert.deepEqual(map, { A: "1", B: "true", C: "from-task" });
});

Deno.test("parseCompose: healthcheck test forms and durations", () => {
  const hc = (body: string) => svc(`    healthcheck:\n${body}`).healthcheck;
  assert.deepEqual(hc(`      test: curl -f http://localhost/\n      interval: 1m30s\n      retries: 5\n`), {
    kind: "shell",
    command: ["curl -f http://localhost/"],
    intervalMs: 90_000,
    retries: 5,
  });
  assert.deepEqual(
    hc(`      test: ["CMD", "true"]\n      timeout: 5s\n      start_period: 10s\n      start_interval: 500ms\n`),
    { kind: "exec", command: ["true"], timeoutMs: 5000, startPeriodMs: 10_000, startIntervalMs: 500 },
  );
  assert.deepEqual(hc(`      test: ["CMD-SHELL", "exit 0"]\n`), { kind: "shell", command: ["exit 0"] });
  assert.deepEqual(hc(`      test: ["NONE"]\n`), { kind: "none", command: [] });
  assert.deepEqual(hc(`      disable: true\n`), { kind: "none", command: [] });
  assert.deepEqual(hc(`      retries: 2\n`), { kind: "inherit", command: [], retries: 2 });
});

Deno.test("parseCompose: depends_on, list and map forms, and the start order", () => {
  const m = parse(
    "services:\n  main:\n    depends_on:\n      web: {condition: service_healthy}\n" +
      "      seed: {condition: service_completed_successfully, required: false}\n" +
      "  web:\n    image: x\n    depends_on: [db]\n  db:\n    image: x\n  seed:\n    image: x\n",
  );
  assert.deepEqual(m.services.main.dependsOn, {
    web: { condition: "service_healthy", required: true, restart: false },
    seed: { condition: "service_completed_successfully", required: false, restart: false },
  });
  assert.deepEqual(m.services.web.dependsOn, { db: { condition: "service_started", required: true, restart: false } });
  assert.deepEqual(m.startOrder, ["db", "web", "seed", "main"]);
  assert.deepEqual(m.mainFields, ["depends_on"]);
});

Deno.test("parseCompose: volumes, short and long syntax, tmpfs, and Harbor's log folders", () => {
  const harbor = harborComposeVars({ contextDir: "/t/environment", hostLogs: { AGENT_LOGS: "/host/agent" } });
  const m = parse(
    "services:\n  web:\n    image: x\n    tmpfs: /run\n    volumes:\n      - data:/data:ro,nocopy\n      - ./srv:/srv\n" +
      "      - /cache\n      - ${HOST_AGENT_LOGS_PATH}:${ENV_AGENT_LOGS_PATH}\n" +
      "      - {type: volume, source: data, target: /d2, read_only: true}\n" +
      "      - {type: bind, source: ., target: /env}\n      - {type: tmpfs, target: /tmp, tmpfs: {size: 64m}}\n" +
      "volumes:\n  data:\n",
    { harbor },
  );
  assert.deepEqual(m.services.web.volumes, [
    { type: "volume", source: "data", target: "/data", readOnly: true, nocopy: true },
    { type: "bind", source: "/t/environment/srv", target: "/srv", readOnly: false },
    { type: "volume", target: "/cache", readOnly: false, nocopy: false },
    { type: "bind", source: "/host/agent", target: "/logs/agent", readOnly: false, harbor: "AGENT_LOGS" },
    { type: "volume", source: "data", target: "/d2", readOnly: true, nocopy: false },
    { type: "bind", source: "/t/environment", target: "/env", readOnly: false },
    { type: "tmpfs", target: "/tmp", sizeBytes: 64 * 1024 ** 2 },
  ]);
  assert.deepEqual(m.services.web.tmpfs, ["/run"]);
  assert.deepEqual(m.volumes, ["data"]);
});

Deno.test("parseCompose: limits, init, pull_policy, stop_grace_period, aliases, ignored and inactive", () => {
  const s = svc(
    `    init: true\n    pull_policy: if_not_present\n    cpus: "1.5"\n    mem_limit: 512m\n    stop_grace_period: 1m30s\n` +
      `    deploy: {resources: {limits: {memory: 512M, pids: 100}}}\n    expose: ["8000"]\n    restart: always\n` +
      `    networks: {default: {aliases: [api]}}\n    x-note: hi\n`,
  );
  assert.deepEqual(
    [s.init, s.pullPolicy, s.cpus, s.memoryBytes, s.pids, s.stopGracePeriodMs, s.aliases, s.ignored],
    [true, "missing", 1.5, 512 * 1024 ** 2, 100, 90_000, ["api"], ["expose", "restart"]],
  );
  const m = parse("services:\n  web:\n    image: x\n  debug:\n    image: x\n    profiles: [debug]\n");
  assert.deepEqual([Object.keys(m.services), m.inactive], [["web"], ["debug"]]);
});

Deno.test("parseCompose: interpolation uses the OS env, then the task env, then Harbor's", () => {
  const m = parse(
    "services:\n  web:\n    image: ${IMG}:${TAG:-latest}\n    command: echo $$HOME ${CONTEXT_DIR} ${NOPE}\n",
    { os: { IMG: "os", CONTEXT_DIR: "os" }, task: { IMG: "task" } },
  );
  assert.equal(m.services.web.image, "task:latest");
  assert.deepEqual(m.services.web.command, ["echo", "$HOME", "/t/environment"]);
  assert.deepEqual(m.unsetVariables, ["NOPE"]);
});

Deno.test("parseCompose: each refusal in one line naming the file, the service and the field", () => {
  const web = "services:\n  web:\n    image: x\n";
  const pod = "is refused: a task's services run in one pod, without host access";
  const cases: [string, string][] = [
    [`${web}    ports: ["8080:80"]\n`, `${FILE}:4: services.web.ports: ${pod} (host ports)`],
    [`${web}    network_mode: host\n`, `${FILE}:4: services.web.network_mode: ${pod} (the pod's network is pgs's)`],
    [`${web}    network_mode: bridge\n`, `${FILE}:4: services.web.network_mode: ${pod} (the pod's network is pgs's)`],
    [`${web}    privileged: true\n`, `${FILE}:4: services.web.privileged: ${pod}`],
    [`${web}    devices: [/dev/fuse]\n`, `${FILE}:4: services.web.devices: ${pod}`],
    [`${web}    container_name: cname\n`, `${FILE}:4: services.web.container_name: ${pod} (pgs names the containers)`],
    [`${web}    pid: host\n`, `${FILE}:4: services.web.pid: ${pod} (a host namespace)`],
    [
      `${web}    volumes: ["/etc:/etc"]\n`,
      `${FILE}:4: services.web.volumes.0: bind mount /etc is outside environment/`,
    ],
    [
      `${web}    volumes: ["~/.ssh:/k"]\n`,
      `${FILE}:4: services.web.volumes.0: bind mount ~/.ssh is outside environment/`,
    ],
    [`services:\n  web:\n    build: ../..\n`, `${FILE}:3: services.web.build: ../.. is outside the task folder`],
    [
      `services:\n  web:\n    build: {context: https://github.com/a/b.git}\n`,
      `${FILE}:3: services.web.build.context: https://github.com/a/b.git is a remote build context`,
    ],
    [
      `${web}    env_file: ../../secrets.env\n`,
      `${FILE}:4: services.web.env_file.0: ../../secrets.env is outside the task folder`,
    ],
    [
      `${web}networks:\n  back:\n    driver: bridge\n`,
      `${FILE}:6: networks.back.driver: custom networks are refused: the services of a task share one pod network`,
    ],
    [
      `${web}volumes:\n  v:\n    external: true\n`,
      `${FILE}:6: volumes.v.external: is refused: a task's volumes are plain ones that live and die with the episode`,
    ],
    [
      `${web}    expose: [8000]\n  api:\n    image: x\n    expose: ["7000-8000/tcp"]\n`,
      `${FILE}:7: services.api.expose.0: port 8000/tcp is exposed by service "web" too: in a pod the services share one port space`,
    ],
    [`services:\n  web:\n    command: x\n`, `${FILE}:3: services.web: has neither image nor build`],
    [`${web}    extends: base\n`, `${FILE}:4: services.web.extends: is not supported: write the service out in full`],
  ];
  for (const [text, want] of cases) assert.equal(refusal(text), want);
  // The same port on another protocol, and in a service that does not start, is no clash.
  parse(`${web}    expose: [8000]\n  api:\n    image: x\n    expose: ["8000/udp"]\n`);
  parse(`${web}    expose: [8000]\n  api:\n    image: x\n    expose: [8000]\n    profiles: [p]\n`);
});

Deno.test("parseCompose: schema, YAML and interpolation errors in one line", () => {
  const cases: [string, string][] = [
    [
      "services:\n  web:\n    imag: x\n",
      `${FILE}:3: services.web.imag: unknown field (the Compose specification has no "imag" here)`,
    ],
    ["services:\n  web:\n    image: [1]\n", `${FILE}:3: services.web.image: must be of type string`],
    [
      "services:\n  web:\n    image: x\n    depends_on: {db: {condition: up}}\n  db:\n    image: x\n",
      `${FILE}:4: services.web.depends_on.db.condition: must be one of "service_started", "service_healthy", "service_completed_successfully"`,
    ],
    [
      "services:\n  web:\n    image: x\n    environment:\n      K: ${TOKEN:?set TOKEN}\n",
      `${FILE}:5: services.web.environment.K: required variable TOKEN is missing a value: set TOKEN`,
    ],
    [
      "services:\n  web:\n    image: a $ b\n",
      `${FILE}:3: services.web.image: invalid interpolation format: "a $ b" (write $$ for a literal $)`,
    ],
    [
      "services:\n  web:\n   image: x\n  bad: : :\n",
      `${FILE}:4: not valid YAML: Nested mappings are not allowed in compact mappings`,
    ],
    ["- a\n", `${FILE}: must be a mapping`],
    [
      "services:\n  web:\n    image: x\n    depends_on: [db]\n",
      `${FILE}:4: services.web.depends_on.db: no service "db" in this file`,
    ],
    [
      "services:\n  a:\n    image: x\n    depends_on: [b]\n  b:\n    image: x\n    depends_on: [a]\n",
      `${FILE}:7: services.b.depends_on: a cycle: a -> b -> a`,
    ],
    [
      'services:\n  web:\n    image: x\n    volumes: ["data:/d"]\n',
      `${FILE}:4: services.web.volumes.0: names volume "data", which the top-level volumes: does not declare`,
    ],
    [
      "services:\n  web:\n    image: x\n    cpus: 1\n    deploy: {resources: {limits: {cpus: '2'}}}\n",
      `${FILE}:4: services.web.cpus: differs from deploy.resources.limits.cpus (Compose refuses two distinct values)`,
    ],
    [
      "services:\n  web:\n    image: x\n    stop_grace_period: soon\n",
      `${FILE}:4: services.web.stop_grace_period: must be a duration such as 1m30s`,
    ],
  ];
  for (const [text, want] of cases) assert.equal(refusal(text), want);
});
