#!/usr/bin/env python3
"""A trainer-side client of `pgs env serve`, standard library only.

`PgsEnv` drives episodes (create, step, finish, close); `ChatEndpoint` asks an OpenAI-compatible server (vLLM,
SGLang, `pgs harness serve`) for each assistant turn, sending the episode's messages, tools and chat-template
kwargs as the drawn harness would. `run_episode` is the loop a GRPO trainer runs per sample.

Token mode (`pgs env serve --tokenizer DIR`): the server renders and tokenises; the trainer only samples.
`TokenSampler` asks vLLM's /v1/completions (a prompt of token ids) or SGLang's /generate (input_ids) for the
completion's ids and logprobs; `run_token_episode` appends each completion and the server's observation_token_ids
to the prompt, and gets the loss mask at the end.

    pgs env serve --profiles opencode=1,pi=1 --token-env PGS_TOKEN &
    python3 pgs_env_client.py --env http://127.0.0.1:8100 --token-env PGS_TOKEN \
        --endpoint http://127.0.0.1:8000/v1 --task /path/to/task --group 0
    # token mode: the server started with --tokenizer; add --token-api vllm (or sglang)
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

    def warm(self, task_dir, n=1):
        """Starts n boxes of a task ahead, so that as many later creates of it return at once: {queued, ready, pending}."""
        return _request("POST", f"{self.base}/warm", {"task_dir": task_dir, "n": n}, self.token)

    def step(self, episode_id, message):
        """Posts an assistant message; returns {observations, done, exit_status, turns}."""
        return _request("POST", f"{self.base}/episodes/{episode_id}/step", message, self.token)

    def step_tokens(self, episode_id, completion_token_ids, logprobs=None):
        """Token mode: posts a sampled completion; returns {observation_token_ids, done, template_rewrite, ...}."""
        body = {"completion_token_ids": list(completion_token_ids)}
        if logprobs is not None:
            body["logprobs"] = list(logprobs)
        return _request("POST", f"{self.base}/episodes/{episode_id}/step", body, self.token)

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


def _played(env, episode_id, turns):
    """Runs `turns()`, then finishes the episode; on any error it closes the episode (its containers go) and re-raises."""
    try:
        turns()
        return env.finish(episode_id)
    except BaseException:
        try:
            env.close(episode_id)
        except PgsError:
            pass
        raise


class TokenSampler:
    """Samples token ids: vLLM's /v1/completions with a prompt of ids, or SGLang's native /generate."""

    def __init__(self, base_url, api="vllm", model=None, api_key=None, max_tokens=4096, **sampling):
        self.api = api
        self.base = base_url.rstrip("/")
        if self.base.count("/") < 3:  # http://host:port → http://host:port/v1
            self.base += "/v1"
        self.api_key = api_key
        self.max_tokens = max_tokens
        self.sampling = {k: v for k, v in sampling.items() if v is not None}
        if api == "vllm":
            self.model = model or _request("GET", f"{self.base}/models", None, api_key)["data"][0]["id"]
        elif api == "sglang":
            self.origin = self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base
        else:
            raise ValueError(f"api must be vllm or sglang, got {api!r}")

    def sample(self, prompt_token_ids):
        """Returns (completion_token_ids, logprobs)."""
        if self.api == "vllm":
            body = {
                "model": self.model,
                "prompt": list(prompt_token_ids),
                "max_tokens": self.max_tokens,
                "logprobs": 0,
                "return_token_ids": True,
                **self.sampling,
            }
            choice = _request("POST", f"{self.base}/completions", body, self.api_key)["choices"][0]
            logprobs = (choice.get("logprobs") or {}).get("token_logprobs")
            return choice["token_ids"], logprobs
        body = {
            "input_ids": list(prompt_token_ids),
            "sampling_params": {"max_new_tokens": self.max_tokens, **self.sampling},
            "return_logprob": True,
        }
        res = _request("POST", f"{self.origin}/generate", body, self.api_key)
        entries = res.get("meta_info", {}).get("output_token_logprobs")
        return res["output_ids"], [e[0] for e in entries] if entries else None


def run_token_episode(env, sampler, row, group=None, max_turns=32):
    """Token mode: prompt ids → sampled ids → the server's observation ids, appended; returns finish's result."""
    ep = env.create(row, group)
    prompt = list(ep["prompt_token_ids"])

    def turns():
        nonlocal prompt
        for _ in range(max_turns):
            ids, logprobs = sampler.sample(prompt)
            step = env.step_tokens(ep["episode_id"], ids, logprobs)
            prompt += list(ids) + list(step["observation_token_ids"])
            if step["done"]:
                break

    result = _played(env, ep["episode_id"], turns)
    # The server's sequence is exactly what was sampled and appended: nothing was re-tokenised.
    if result["token_ids"] != prompt[: len(result["token_ids"])]:
        raise RuntimeError("token mode: the server's sequence differs from the trainer's")
    return result


def run_episode(env, policy, row, group=None, max_turns=32):
    """One episode: the harness's first messages, then model turn → observations until it ends; returns the result."""
    ep = env.create(row, group)
    messages = list(ep["messages"])

    def turns():
        for _ in range(max_turns):
            message = policy.chat(messages, ep["tools"], ep["chat_template_kwargs"])
            step = env.step(ep["episode_id"], message)
            # The trainer keeps its own copy of the conversation; pgs keeps the harness's (GET .../episodes/ID).
            messages.append({k: v for k, v in message.items() if k in ("role", "content", "tool_calls")})
            messages.extend(step["observations"])
            if step["done"]:
                break

    result = _played(env, ep["episode_id"], turns)
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
    p.add_argument("--token-api", choices=["vllm", "sglang"], help="token mode (the server has --tokenizer)")
    args = p.parse_args(argv)

    env = PgsEnv(args.env, os.environ.get(args.token_env) if args.token_env else None)
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    if args.token_api:
        sampler = TokenSampler(args.endpoint, args.token_api, args.model, key, temperature=args.temperature)
        for sample in range(args.samples):
            r = run_token_episode(env, sampler, {"task_dir": args.task}, args.group, args.max_turns)
            out = {k: r[k] for k in ("reward", "harness_profile", "exit_status", "turns", "template_rewrite_turns")}
            out["tokens"] = len(r["token_ids"])
            out["sampled_tokens"] = sum(r["loss_mask"])
            print(json.dumps({"sample": sample, **out}), flush=True)
        return 0
    policy = ChatEndpoint(
        args.endpoint,
        args.model,
        os.environ.get(args.api_key_env) if args.api_key_env else None,
        temperature=args.temperature,
    )
    if args.samples > 1:
        env.warm(args.task, args.samples - 1)  # the first starts now; the others find their box ready
    for sample in range(args.samples):
        r = run_episode(env, policy, {"task_dir": args.task}, args.group, args.max_turns)
        out = {k: r[k] for k in ("reward", "metrics", "harness_profile", "exit_status", "turns")}
        print(json.dumps({"sample": sample, **out}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
