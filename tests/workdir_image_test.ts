/** The working directory baked into a derived image: same files, owners and modes as staging; made once per content. */
import assert from "node:assert/strict";
import * as path from "node:path";
import { text } from "../lib/runtime/channel.ts";
import { Docker, type DockerCallOptions, type DockerResult } from "../lib/runtime/docker/mod.ts";
import { ImageStore } from "../lib/runtime/images.ts";
import { Sandbox } from "../lib/runtime/sandbox.ts";
import { loadTask, type Task } from "../lib/task/task.ts";
import { staticOwner } from "../lib/runtime/workdir_image.ts";
import { dockerTest, inspect, makeTask, removeTask } from "./docker_helpers.ts";
import { startBoxes } from "../lib/verify/episode_verifier.ts";

/** A Docker client that counts `docker commit` calls. */
class CountingDocker extends Docker {
  commits = 0;
  override call(args: string[], opts?: DockerCallOptions): Promise<DockerResult> {
    if (args[0] === "commit") this.commits++;
    return super.call(args, opts);
  }
}

// Owners, modes, types and sizes of everything under /workdir, as the agent would see them.
const LISTING = "find . | sort | while read -r f; do stat -c '%u:%g %a %F %s %n' \"$f\"; done";

async function listing(task: Task, store: ImageStore, stageWorkdir: boolean): Promise<{ ls: string; image: string }> {
  const box = await Sandbox.start(task, store, { stageWorkdir });
  try {
    const r = await box.exec(LISTING, { shell: "sh" });
    assert.equal(r.exitCode, 0, text(r.stderr));
    return { ls: text(r.stdout), image: (await inspect(store.runtime as Docker, box.id)).Config.Image };
  } finally {
    await box.remove();
  }
}

Deno.test("staticOwner: root and numeric uid:gid are known without running the image; names are not", () => {
  assert.deepEqual(staticOwner(""), { uid: 0, gid: 0 });
  assert.deepEqual(staticOwner("root"), { uid: 0, gid: 0 });
  assert.deepEqual(staticOwner("1234:99"), { uid: 1234, gid: 99 });
  assert.equal(staticOwner("1234"), undefined, "a bare uid's group comes from /etc/passwd");
  assert.equal(staticOwner("agent"), undefined);
});

for (const user of ["", "1234:1234"]) {
  dockerTest(
    `workdir image (USER ${user || "root"}): same files as staging, made once, not in the verifier`,
    async () => {
      const docker = new CountingDocker();
      const dir = await makeTask({
        "task.toml": '[environment]\nworkdir = "/srv/app"\n',
        "environment/Dockerfile": `FROM pgs-base:1\n${user ? `USER ${user}\n` : ""}`,
        "environment/workdir/run.sh": "#!/bin/sh\necho hi\n",
        "environment/workdir/src/lib/a.py": "x = 1\n",
        "environment/workdir/empty/.keep": "",
        // Content no earlier run had, so this run makes its image (and removes it at the end).
        "environment/workdir/nonce.txt": crypto.randomUUID(),
      });
      const made = new Set<string>();
      try {
        await Deno.chmod(path.join(dir, "environment/workdir/run.sh"), 0o750);
        await Deno.symlink("src/lib/a.py", path.join(dir, "environment/workdir/link.py"));
        const task = await loadTask(dir);
        const store = new ImageStore(docker);
        const baked = await listing(task, store, false);
        const again = await listing(task, store, false);
        const staged = await listing(task, store, true);
        assert.match(baked.image, /^pgs-work:[0-9a-f]{16}$/);
        made.add(baked.image);
        assert.equal(again.image, baked.image);
        assert.match(staged.image, /^pgs-env:/);
        assert.equal(baked.ls, staged.ls);
        const owner = user || "0:0";
        assert.match(baked.ls, new RegExp(`^${owner} 750 regular file 18 ./run.sh$`, "m"));
        assert.match(baked.ls, new RegExp(`^${owner} 777 symbolic link \\d+ ./link.py$`, "m"));
        assert.equal(docker.commits, 1, "one image for both episodes");
        // Another process (a new store) finds the image by its content tag.
        const other = new CountingDocker();
        assert.equal((await listing(task, new ImageStore(other), false)).image, baked.image);
        assert.equal(other.commits, 0);
        // Changed content is another image.
        await Deno.writeTextFile(path.join(dir, "environment/workdir/src/lib/a.py"), "x = 2\n");
        const changed = await listing(await loadTask(dir), new ImageStore(docker), false);
        assert.notEqual(changed.image, baked.image);
        made.add(changed.image);
        assert.equal(docker.commits, 2);
        // The verifier's clean container runs the task image, which has no workdir of its own.
        const { box, verifier } = await startBoxes(task, store);
        try {
          const vbox = (await verifier.take()!).box;
          const vid = vbox.id;
          assert.match((await inspect(docker, vid)).Config.Image, /^pgs-env:/);
          const r = await docker.call(["exec", vid, "ls", "/srv/app"]);
          assert.notEqual(r.code, 0, "no /srv/app in the verifier's image");
          await vbox.remove();
        } finally {
          await box.remove();
        }
      } finally {
        await removeTask(dir);
        if (made.size) await docker.call(["rmi", ...made]);
      }
    },
  );
}

dockerTest("workdir image: a VOLUME over the workdir (or inside it) falls back to staging the files", async () => {
  const docker = new CountingDocker();
  for (const volume of ["/srv/app", "/srv/app/data", "/srv"]) {
    const dir = await makeTask({
      "task.toml": '[environment]\nworkdir = "/srv/app"\n',
      "environment/Dockerfile": `FROM pgs-base:1\nVOLUME ${volume}\n`,
      "environment/workdir/data/a.txt": "in the volume\n",
      "environment/workdir/b.txt": "beside it\n",
    });
    try {
      const { ls, image } = await listing(await loadTask(dir), new ImageStore(docker), false);
      assert.match(image, /^pgs-env:/, volume);
      assert.match(ls, /^0:0 644 regular file 14 \.\/data\/a\.txt$/m, volume);
      assert.match(ls, /^0:0 644 regular file 10 \.\/b\.txt$/m, volume);
    } finally {
      await removeTask(dir);
    }
  }
  assert.equal(docker.commits, 0);
});
