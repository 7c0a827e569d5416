#!/usr/bin/env python3
"""A trainer-side client of `pgs env serve`, standard library only.

`PgsEnv` drives episodes (create, step, finish, close); `ChatEndpoint` asks an OpenAI-compatible server (vLLM,
SGLang, `pgs harness serve`) for each assistant turn, sending the episode's messages, tools and chat-template
kwargs as the drawn harness would. `run_episode` is the loop a GRPO trainer runs per sample.

    pgs env serve --profiles opencode=1,pi=1 --token-env PGS_TOKEN &
    python3 pgs_env_client.py --env http://127.0.0.1:8100 --token-env PGS_TOKEN \
        --endpoint http://127.0.0.1:8000/v1 --task /path/to/task --group 0
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request


class PgsError(RuntimeError):
    """An HTTP error from pgs or the endpoint, with the server's message."""

    def __init__(self, status, body):
        self.status = status
        try:
            err = json.loads(body).get("error", {})
            message = err.get("message", body) if isinstance(err, dict) else str(err)
        except ValueError:
            message = body
        super().__init__(f"HTTP {status}: {message}")


def _request(method, url, body=None, token=None, timeout=900):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return json.loads(res.read() or b"{}")
    except urllib.error.HTTPError as e:
        raise PgsError(e.code, e.read().decode(errors="replace")) from None


class PgsEnv:
    """HarborEnv over HTTP: one object per `pgs env serve`, many episodes at once (one thread each is fine)."""

    def __init__(self, base_url, token=None):
        self.base = base_url.rstrip("/")
        if not self.base.endswith("/v1"):
            self.base += "/v1"
        self.token = token

    def health(self):
        return _request("GET", f"{self.base}/health")

    def create(self, row, group=None):
        """Starts an episode: {episode_id, messages, tools, chat_template_kwargs, harness_profile, ...}."""
        body = {"row": row}
        if group is not None:
            body["group"] = group
        return _request("POST", f"{self.base}/episodes", body, self.token)

    def step(self, episode_id, message):
        """Posts an assistant message; returns {observations, done, exit_status, turns}."""
        return _request("POST", f"{self.base}/episodes/{episode_id}/step", message, self.token)

    def finish(self, episode_id):
        """Scores the episode with the task's verifier: {reward, metrics, answer, ...}; its containers are removed."""
        return _request("POST", f"{self.base}/episodes/{episode_id}/finish", {}, self.token)

    def close(self, episode_id):
        """Removes the episode without scoring it."""
        return _request("DELETE", f"{self.base}/episodes/{episode_id}", None, self.token)


class ChatEndpoint:
    """An OpenAI-compatible chat endpoint (non-streaming)."""

    def __init__(self, base_url, model=None, api_key=None, **sampling):
        self.base = base_url.rstrip("/")
        if self.base.count("/") < 3:  # http://host:port → http://host:port/v1
            self.base += "/v1"
        self.api_key = api_key
        self.sampling = {k: v for k, v in sampling.items() if v is not None}
        self.model = model or _request("GET", f"{self.base}/models", None, api_key)["data"][0]["id"]

    def chat(self, messages, tools, chat_template_kwargs):
        body = {"model": self.model, "messages": messages, **self.sampling}
        if tools:
            body["tools"] = tools
        if chat_template_kwargs:
            body["chat_template_kwargs"] = chat_template_kwargs
        res = _request("POST", f"{self.base}/chat/completions", body, self.api_key)
        choice = res["choices"][0]
        message = dict(choice["message"])
        message["finish_reason"] = choice.get("finish_reason")
        return message


def run_episode(env, policy, row, group=None, max_turns=32):
    """One episode: the harness's first messages, then model turn → observations until it ends; returns the result."""
    ep = env.create(row, group)
    messages = list(ep["messages"])
    try:
        for _ in range(max_turns):
            message = policy.chat(messages, ep["tools"], ep["chat_template_kwargs"])
            step = env.step(ep["episode_id"], message)
            # The trainer keeps its own copy of the conversation; pgs keeps the harness's (GET .../episodes/ID).
            messages.append({k: v for k, v in message.items() if k in ("role", "content", "tool_calls")})
            messages.extend(step["observations"])
            if step["done"]:
                break
        result = env.finish(ep["episode_id"])
    except BaseException:
        try:
            env.close(ep["episode_id"])
        except PgsError:
            pass
        raise
    result["messages"] = messages
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", required=True, help="pgs env serve URL, e.g. http://127.0.0.1:8100")
    p.add_argument("--token-env", help="environment variable holding the pgs env serve token")
    p.add_argument("--endpoint", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model")
    p.add_argument("--api-key-env")
    p.add_argument("--task", required=True, help="task directory (as the server sees it)")
    p.add_argument("--group", default=None, help="group id: samples of one group share the drawn profile")
    p.add_argument("--samples", type=int, default=1)
    p.add_argument("--max-turns", type=int, default=32)
    p.add_argument("--temperature", type=float)
    args = p.parse_args(argv)

    env = PgsEnv(args.env, os.environ.get(args.token_env) if args.token_env else None)
    policy = ChatEndpoint(
        args.endpoint,
        args.model,
        os.environ.get(args.api_key_env) if args.api_key_env else None,
        temperature=args.temperature,
    )
    for sample in range(args.samples):
        r = run_episode(env, policy, {"task_dir": args.task}, args.group, args.max_turns)
        out = {k: r[k] for k in ("reward", "metrics", "harness_profile", "exit_status", "turns")}
        print(json.dumps({"sample": sample, **out}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
