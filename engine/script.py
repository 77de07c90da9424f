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
from engine.legal import play
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
            state, events = play(game, state, seat, action, rng_for(seed, ply))
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


def parse(data: bytes) -> Any:
    """The JSON value of a script's bytes, or a MalformedScript saying why it cannot be read:
    not UTF-8, not JSON (``NaN`` and ``Infinity`` are not JSON), or nested deeper than the
    reader can follow."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedScript(f"not UTF-8 text (byte {exc.start + 1} of the script)") from None
    try:
        return json.loads(text, parse_constant=_not_json_number)
    except json.JSONDecodeError as exc:
        raise MalformedScript(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except MalformedScript:
        raise
    except RecursionError:
        raise MalformedScript("nested too deeply to read") from None
    except ValueError:  # an integer longer than Python's digit limit
        raise MalformedScript("not JSON (a number has too many digits)") from None


def _not_json_number(name: str) -> Any:
    raise MalformedScript(f"not JSON ({name} is not a JSON number)")


def _fail(message: str) -> int:
    """Exit status 2 with the message as exactly one line on standard error."""
    print(" ".join(message.splitlines()), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        return _fail("usage: python -m engine.script FILE   (or - for standard input)")
    try:
        if args[0] == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args[0], "rb") as handle:
                data = handle.read()
    except OSError as exc:
        return _fail(f"cannot read script: {exc.strerror or exc}")
    try:
        # The whole document is built before anything is printed: a failure leaves stdout empty.
        text = json.dumps(run_script(parse(data)), indent=1)
    except MalformedScript as exc:
        return _fail(f"malformed script: {exc}")
    except RecursionError:
        return _fail("malformed script: nested too deeply to play")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
