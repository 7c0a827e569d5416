"""Hidden tests for fix-word-count. Usage: python3 check.py /workdir"""
import importlib.util
import json
import os
import subprocess
import sys
import traceback

WORKDIR = sys.argv[1] if len(sys.argv) > 1 else "/workdir"
HERE = os.path.dirname(os.path.abspath(__file__))
# Where the result goes: test.sh runs this as nobody and writes the reward from it.
REWARD = os.environ.get("REWARD_OUT", "/logs/verifier/reward.json")

COUNT_CASES = [
    ("Hello, world! Hello.", {"hello": 2, "world": 1}),
    ("One\ttwo\nthree  one\r\nTWO", {"one": 2, "two": 2, "three": 1}),
    ("Don't stop; it's 5 o'clock.", {"don't": 1, "stop": 1, "it's": 1, "5": 1, "o'clock": 1}),
    ("'quoted' words' 'edge", {"quoted": 1, "words": 1, "edge": 1}),
    ("well-known snake_case", {"well": 1, "known": 1, "snake": 1, "case": 1}),
    ("version 2 and 2.0", {"version": 1, "2": 2, "and": 1, "0": 1}),
    ("Café café CAFÉ!", {"café": 3}),
    ("", {}),
    ("  ... !!! -- ''  \n", {}),
]

TOKEN_CASES = [
    ("The END. the end?", ["the", "end", "the", "end"]),
    ("rock'n'roll--all night", ["rock'n'roll", "all", "night"]),
]

TOP_CASES = [
    (("b a b c a d", 3), [("a", 2), ("b", 2), ("c", 1)]),
    (("zeta Alpha alpha beta Beta gamma", 10), [("alpha", 2), ("beta", 2), ("gamma", 1), ("zeta", 1)]),
    (("x y z", 1), [("x", 1)]),
    (("", 5), []),
]

CLI_TEXT = "The cat; the CAT, the hat!\nA hat-trick.\n"
CLI_CASES = [
    (["-n", "2", "FILE"], None, "3 the\n2 cat\n"),
    (["FILE"], None, "3 the\n2 cat\n2 hat\n1 a\n1 trick\n"),
    (["-n", "1"], "b a B, a! c", "2 a\n"),
    (["-"], "...", ""),
]


def load_module():
    path = os.path.join(WORKDIR, "wordcount.py")
    spec = importlib.util.spec_from_file_location("wordcount_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_cases():
    passed, total, failures = 0, 0, []

    def check(label, fn):
        nonlocal passed, total
        total += 1
        try:
            ok = fn()
        except Exception:
            ok = False
            failures.append(label + ": " + traceback.format_exc(limit=1).strip().splitlines()[-1])
        else:
            if not ok:
                failures.append(label)
        passed += bool(ok)

    try:
        module = load_module()
    except Exception:
        traceback.print_exc()
        module = None

    for text, expected in COUNT_CASES:
        check(f"count_words({text!r})", lambda t=text, e=expected: dict(module.count_words(t)) == e)
    for text, expected in TOKEN_CASES:
        check(f"tokenize({text!r})", lambda t=text, e=expected: list(module.tokenize(t)) == e)
    for (text, n), expected in TOP_CASES:
        check(f"top_words({text!r}, {n})",
              lambda t=text, n=n, e=expected: [tuple(p) for p in module.top_words(t, n)] == e)

    sample = "/tmp/wc_hidden_input.txt"
    with open(sample, "w", encoding="utf-8") as handle:
        handle.write(CLI_TEXT)
    for args, stdin, expected in CLI_CASES:
        argv = [sample if a == "FILE" else a for a in args]

        def cli(argv=argv, stdin=stdin, expected=expected):
            proc = subprocess.run([sys.executable, os.path.join(WORKDIR, "wc.py"), *argv],
                                  input=stdin if stdin is not None else "", cwd=WORKDIR,
                                  capture_output=True, text=True, timeout=10)
            return proc.returncode == 0 and proc.stdout == expected

        check(f"wc.py {' '.join(args)}", cli)
    return passed, total, failures


def collateral_ok():
    ok = True
    for name in sorted(os.listdir(os.path.join(HERE, "pristine"))):
        with open(os.path.join(HERE, "pristine", name), "rb") as handle:
            want = handle.read()
        try:
            with open(os.path.join(WORKDIR, name), "rb") as handle:
                got = handle.read()
        except OSError:
            got = None
        if got != want:
            print(f"collateral damage: {name} was changed or removed")
            ok = False
    return ok


def main():
    passed, total, failures = run_cases()
    for failure in failures:
        print("FAIL", failure)
    clean = collateral_ok()
    all_passed = total > 0 and passed == total
    result = {
        "reward": 1.0 if (all_passed and clean) else 0.0,
        "tests_passed": round(passed / total, 4) if total else 0.0,
        "collateral_ok": 1 if clean else 0,
    }
    print(f"{passed}/{total} hidden tests passed; collateral_ok={int(clean)}")
    with open(REWARD, "w") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
