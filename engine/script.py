"""The script runner: ``python -m engine.script FILE`` (or ``-`` for standard input).

Reads a JSON script naming a game, its seats, options, seed, an optional stack (what chance will
bring) and a list of actions, plays them through the engine and prints one JSON document with
``steps``, ``to_act``, ``legal``, ``summary`` and ``result``, exactly as
``../shared/spec/README.md`` defines. Exit status 0 whenever the script could be read (refused
actions included); 2 with a one-line message on standard error when it is malformed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from engine import get_game
from engine.rules import RuleError, SetupError, rng_for

SCRIPT_KEYS = frozenset({"game", "seats", "options", "seed", "stack", "actions"})


class MalformedScript(ValueError):
    """The script itself cannot be played (as opposed to an action the rules refuse)."""


def run_script(script: Mapping[str, Any]) -> dict[str, Any]:
    """Play a parsed script and return the output document."""
    if not isinstance(script, Mapping):
        raise MalformedScript("A script must be a JSON object.")
    unknown = sorted(set(script) - SCRIPT_KEYS)
    if unknown:
        raise MalformedScript(f"Unknown script key {unknown[0]!r}.")
    key = script.get("game")
    if not isinstance(key, str):
        raise MalformedScript("The script must name a game.")
    seed = script.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise MalformedScript("'seed' must be a whole number.")
    options = script.get("options", {})
    if not isinstance(options, Mapping):
        raise MalformedScript("'options' must be an object.")
    stack = script.get("stack", {})
    if not isinstance(stack, Mapping):
        raise MalformedScript("'stack' must be an object.")
    actions = script.get("actions", [])
    if not isinstance(actions, list):
        raise MalformedScript("'actions' must be a list.")
    try:
        game = get_game(key)
        state = game.setup(script.get("seats"), options, rng_for(seed, "setup"), stack)  # type: ignore[arg-type]
    except SetupError as exc:
        raise MalformedScript(str(exc)) from None

    steps: list[dict[str, Any]] = []
    ply = 0
    for entry in actions:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("action"), Mapping):
            raise MalformedScript("Each step needs a 'seat' and an 'action' object.")
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise MalformedScript("Each step's 'seat' must be a whole number.")
        action = dict(entry["action"])
        step: dict[str, Any] = {"seat": seat, "action": action}
        try:
            state, events = game.apply(state, seat, action, rng_for(seed, ply))
        except RuleError as exc:
            step.update(ok=False, error=str(exc))
        else:
            ply += 1
            step.update(ok=True, events=events)
        steps.append(step)

    to_act = game.to_act(state)
    result = game.result(state)
    return {
        "steps": steps,
        "to_act": to_act,
        "legal": [] if to_act is None else game.legal_actions(state, to_act),
        "summary": game.summary(state),
        "result": None if result is None else result.to_json(),
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m engine.script FILE   (or - for standard input)", file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            text = sys.stdin.read()
        else:
            with open(args[0], encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"cannot read script: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        output = run_script(json.loads(text))
    except json.JSONDecodeError as exc:
        print(f"malformed script: not JSON ({exc.msg} at line {exc.lineno})", file=sys.stderr)
        return 2
    except MalformedScript as exc:
        print(f"malformed script: {exc}", file=sys.stderr)
        return 2
    json.dump(output, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
