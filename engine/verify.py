"""Check a finished game's deal: ``python -m engine.verify EXPORT`` (or ``-`` for standard input).

EXPORT is a game as ``/siege history`` exports it (Replay, then Export script): a script
(engine/script.py) with a ``chance`` object (scheme, salt, commitment), each action's logged
``events``, and ``dealt`` (the opening state and the final one, as the table stored them, and
where a seat resigned). The check, in order:

1. the commitment is ``sha256("<seed>:<salt>")`` (engine/chance.py), and is printed so it can be
   compared with the one the table showed when the game started;
2. the seed deals the opening state exactly;
3. every logged action, played again from the seed (with the resignations where they came), is
   accepted and brings exactly the events (dice, cards, reshuffles) the log holds;
4. the final state is the one stored.

Prints one line per check and a verdict; exit status 0 when everything chance dealt matches, 1
when something does not, 2 when the file is not a script.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import chance, get_game
from engine.rules import Game, RuleError, SetupError, State
from engine.script import MalformedScript, parse, scheme_in

#: How a game ended (``dealt.ending`` of an export), in words for the verdict.
ENDINGS = {
    "rules": "by the rules",
    "resigned": "by a resignation",
    "time": "by a forfeit on the clock",
    "claim": "by a claim: the player to move abandoned the game",
    "aborted": "aborted before every player had made a first move",
    "agreed": "cancelled by agreement",
    "moderator": "cancelled by a moderator",
}


@dataclass
class Verdict:
    """The lines of a verification and whether every check held."""

    lines: list[str] = field(default_factory=list)
    ok: bool = True

    def passed(self, line: str) -> None:
        self.lines.append(f"ok: {line}")

    def failed(self, line: str) -> None:
        self.ok = False
        self.lines.append(f"MISMATCH: {line}")

    def text(self) -> str:
        last = (
            "Verified: everything chance dealt matches the seed."
            if self.ok
            else "NOT verified: the game does not match its seed."
        )
        return "\n".join([*self.lines, last])


def verify(script: Mapping[str, Any]) -> Verdict:
    """Check an exported game (see the module's docstring); a file that is not a script at all
    raises MalformedScript."""
    if not isinstance(script, Mapping):
        raise MalformedScript("A script must be a JSON object.")
    scheme = scheme_in(script)
    seed = script.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise MalformedScript("'seed' must be a whole number.")
    actions = script.get("actions", [])
    if not isinstance(actions, list):
        raise MalformedScript("'actions' must be a list.")
    dealt = script.get("dealt", {})
    if not isinstance(dealt, Mapping):
        raise MalformedScript("'dealt' must be an object.")
    verdict = Verdict()
    _check_commitment(script.get("chance", {}), seed, verdict)
    try:
        game = get_game(str(script.get("game")))
        state = chance.deal(
            game,
            script.get("seats"),  # type: ignore[arg-type]
            script.get("options", {}),
            seed,
            script.get("stack", {}),
            scheme,
        )
    except (SetupError, KeyError, TypeError) as exc:
        raise MalformedScript(str(exc)) from None
    _compare_state("the opening deal", dealt.get("opening"), state, verdict)
    resignations = _resignations(dealt)
    replayed = 0
    ply = 0  # the stored log's count: resignations are logged moves too
    for n, entry in enumerate(actions, start=1):
        try:
            for quitter, drawn in resignations.get(n - 1, []):
                state, ply = chance.keep(state, _quit(game, state, quitter, drawn)), ply + 1
        except RuleError as exc:
            verdict.failed(f"a resignation before move {n} is refused ({exc})")
            return verdict
        if not isinstance(entry, Mapping) or not isinstance(entry.get("action"), Mapping):
            raise MalformedScript("Each step needs a 'seat' and an 'action' object.")
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise MalformedScript("Each step's 'seat' must be a whole number.")
        try:
            state, events = chance.advance(game, state, seat, dict(entry["action"]), seed, ply)
        except RuleError as exc:
            verdict.failed(f"move {n} is refused by the rules ({exc}); the log says it was played")
            return verdict
        replayed += 1
        ply += 1
        logged = entry.get("events")
        if logged is not None and _canonical(logged) != _canonical(events):
            verdict.failed(
                f"move {n}: the log says {_canonical(logged)}, the seed deals {_canonical(events)}"
            )
            return verdict
    try:
        for quitter, drawn in resignations.get(len(actions), []):
            state = chance.keep(state, _quit(game, state, quitter, drawn))
    except RuleError as exc:
        verdict.failed(f"the closing resignation is refused ({exc})")
        return verdict
    moves = f"{replayed} move{'' if replayed == 1 else 's'} played again"
    if any("events" in entry for entry in actions):
        verdict.passed(f"{moves}: every logged event matches")
    else:
        verdict.passed(f"{moves} (the file logs no events to compare)")
    _compare_state("the final state", dealt.get("final"), state, verdict)
    ending = ENDINGS.get(str(dealt.get("ending")))
    if ending is not None:  # a table's decision, not chance's: told, not checked
        verdict.lines.append(f"ended: {ending}")
    return verdict


def _quit(game: Game, state: State, seat: int, drawn: bool) -> State:
    """The state after ``seat`` resigned (or forfeited), or abandoned it to a claimed draw."""
    return (game.claim_draw if drawn else game.resign)(state, seat)[0]


def _resignations(dealt: Mapping[str, Any]) -> dict[int, list[tuple[int, bool]]]:
    """``dealt.resignations`` by position: the seats that resigned after n scripted actions, and
    whether each ended the game in a claimed draw (``draw``) rather than a resignation."""
    given = dealt.get("resignations", [])
    if not isinstance(given, list):
        raise MalformedScript("'dealt' 'resignations' must be a list.")
    found: dict[int, list[tuple[int, bool]]] = {}
    for entry in given:
        after = entry.get("after") if isinstance(entry, Mapping) else None
        seat = entry.get("seat") if isinstance(entry, Mapping) else None
        if not all(type(x) is int for x in (after, seat)):
            raise MalformedScript("Each resignation needs whole numbers 'after' and 'seat'.")
        drawn = entry.get("draw", False)
        if not isinstance(drawn, bool):
            raise MalformedScript("A resignation's 'draw' must be true or false.")
        found.setdefault(int(after), []).append((int(seat), drawn))  # type: ignore[arg-type]
    return found


def _check_commitment(fair: Any, seed: int, verdict: Verdict) -> None:
    if not isinstance(fair, Mapping) or "salt" not in fair or "commitment" not in fair:
        verdict.lines.append(
            "note: no commitment in this file (a game from before commitments, or a script "
            "written by hand): only the replay is checked"
        )
        return
    salt, stated = fair["salt"], fair["commitment"]
    if not isinstance(salt, str) or not isinstance(stated, str):
        raise MalformedScript("'chance' 'salt' and 'commitment' must be text.")
    computed = chance.commitment(seed, salt)
    if computed == stated.lower():
        verdict.passed(
            f"commitment sha256(seed:salt) = {computed} (the table showed "
            f"{computed[: chance.SHORT]} at its start)"
        )
    else:
        verdict.failed(f"sha256(seed:salt) is {computed}, the file says {stated}")


def _compare_state(what: str, logged: Any, state: State, verdict: Verdict) -> None:
    if logged is None:
        verdict.lines.append(f"note: the file holds no record of {what} to compare")
    elif _canonical(logged) == _canonical(state):
        verdict.passed(f"{what} is the one the seed deals")
    else:
        keys = sorted(set(logged) | set(state)) if isinstance(logged, Mapping) else []
        differ = [k for k in keys if _canonical(logged.get(k)) != _canonical(state.get(k))]
        verdict.failed(f"{what} differs from the seed's in {', '.join(differ) or 'its shape'}")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m engine.verify EXPORT   (or - for standard input)", file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args[0], "rb") as handle:
                data = handle.read()
    except OSError as exc:
        print(f"cannot read the export: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        verdict = verify(parse(data))
    except MalformedScript as exc:
        print(" ".join(f"not a game export: {exc}".splitlines()), file=sys.stderr)
        return 2
    print(verdict.text())
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
