"""Information-set Monte Carlo tree search with determinization (single observer, open loop).

Cowling, Powley and Whitehouse's SO-ISMCTS: every iteration samples one full state consistent
with what the searching seat sees (a *determinization*, built by the game's model), walks one
shared tree using only the actions legal in that sample, expands one action, plays a short
rollout with the model's policy and scores the end with the model's evaluation. Chance (dice,
draws) comes from the search's own generator inside ``apply``, so a tree node stands for an
action sequence, not for a state. Each node keeps the reward of the seat that chose its action,
which makes the same code serve one, two or seven seats.

Pure and synchronous: the caller passes the generator and, if it wants a time cap, a
``deadline`` callable that says when to stop (the engine never reads a clock).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from engine.rules import Action, Game, State

Deadline = Callable[[], bool]


class Model(Protocol):
    """What a game supplies to be searched (see ``engine/ai/castles.py`` and its siblings)."""

    game: Game
    rollout_depth: int

    def shortcut(self, rng: random.Random) -> Action | None:
        """A choice that needs no search (or None to search)."""
        ...

    def to_act(self, state: State) -> int | None: ...

    def legal(self, state: State, seat: int) -> list[Action]:
        """The legal actions, as the engine lists them (a model may compute them faster)."""
        ...

    def apply(self, state: State, seat: int, action: Action, rng: random.Random) -> State:
        """The next state, as the engine makes it (a model may skip checks and events)."""
        ...

    def determinize(self, rng: random.Random) -> State:
        """A full state consistent with the searching seat's view (fresh on every call)."""
        ...

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        """The playout policy's action for ``seat`` (a legal one)."""
        ...

    def evaluate(self, state: State) -> Sequence[float]:
        """A reward in [0, 1] per seat for a state the rollout stopped in (over or not)."""
        ...

    def is_cutoff(self, state: State, depth: int) -> bool:
        """Whether a rollout stops here (before the game's end) to be evaluated."""
        ...

    def root_actions(self, legal: list[Action]) -> list[Action]:
        """The root's candidate actions out of the legal list (a model may leave some out)."""
        ...


class EngineRules:
    """The rules as the engine plays them, for models that need nothing quicker."""

    game: Game

    def to_act(self, state: State) -> int | None:
        return self.game.to_act(state)

    def legal(self, state: State, seat: int) -> list[Action]:
        return self.game.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action, rng: random.Random) -> State:
        return self.game.apply(state, seat, action, rng)[0]


def action_key(action: Action) -> str:
    """A hashable name for an action. The engine builds each kind of action with its keys in
    one order, so ``repr`` tells actions apart without sorting."""
    return repr(action)


class Node:
    __slots__ = ("avail", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # the seat whose action leads here
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.children: dict[str, Node] = {}


def ismcts(
    model: Model,
    root_seat: int,
    iterations: int,
    rng: random.Random,
    *,
    exploration: float = 0.7,
    deadline: Deadline | None = None,
    guided: bool = False,
) -> Action:
    """The most visited root action after ``iterations`` iterations (or until ``deadline()``).

    ``guided``: below the root, a node grows one child at a time as its visits grow (at most
    1 + √visits children, progressive widening), first the playout policy's action (the reply
    a player would likely make), then untried ones at random. Without it, a search of a few
    hundred iterations tries each of a dozen replies once, and the one reply that hurts weighs
    a twelfth: it does not see a threat one move ahead."""
    first = model.determinize(rng)
    candidates = model.root_actions(model.game.legal_actions(first, root_seat))
    if not candidates:
        raise ValueError("The seat has no legal action to choose from.")
    if len(candidates) == 1:
        return candidates[0]
    allowed = {action_key(a) for a in candidates}
    by_key = {action_key(a): a for a in candidates}
    root = Node(root_seat)
    state: State | None = first
    for done in range(iterations):
        if done and deadline is not None and deadline():
            break
        if state is None:
            state = model.determinize(rng)
        _iterate(model, root, state, allowed, rng, exploration, guided)
        state = None
    best = max(
        sorted(root.children.items()),
        key=lambda item: (item[1].visits, item[1].total),
    )
    return by_key[best[0]]


def _iterate(
    model: Model,
    root: Node,
    state: State,
    allowed: set[str],
    rng: random.Random,
    exploration: float,
    guided: bool = False,
) -> None:
    node = root
    path: list[Node] = []
    expanded = False
    while not expanded:
        seat = model.to_act(state)
        if seat is None:
            break
        legal = model.legal(state, seat)
        if node is root:
            legal = [a for a in legal if action_key(a) in allowed]
        keyed = [(action_key(a), a) for a in legal]
        untried = [(k, a) for k, a in keyed if k not in node.children]
        for k, _ in keyed:
            child = node.children.get(k)
            if child is not None:
                child.avail += 1
        widen = guided and node is not root
        if untried and widen and len(untried) < len(keyed):
            # Progressive widening: one more reply only as the node's visits grow.
            widen = len(keyed) - len(untried) < 1 + math.sqrt(node.visits)
            if not widen:
                untried = []
        if untried:
            key, action = untried[rng.randrange(len(untried))]
            if widen:
                preferred = model.rollout_action(state, seat, rng)
                if action_key(preferred) in {k for k, _ in untried}:
                    key, action = action_key(preferred), preferred
            child = Node(seat)
            node.children[key] = child
            expanded = True
        else:
            tried = [(k, a) for k, a in keyed if k in node.children]
            key, action = _select(node, tried, exploration)
            child = node.children[key]
        state = model.apply(state, seat, action, rng)
        path.append(child)
        node = child
    depth = 0
    while not model.is_cutoff(state, depth):
        seat = model.to_act(state)
        if seat is None:
            break
        state = model.apply(state, seat, model.rollout_action(state, seat, rng), rng)
        depth += 1
    rewards = model.evaluate(state)
    for visited in path:
        visited.visits += 1
        visited.total += rewards[visited.seat]


def _select(node: Node, keyed: list[tuple[str, Action]], exploration: float) -> tuple[str, Action]:
    best: tuple[str, Action] | None = None
    best_score = -math.inf
    for key, action in keyed:
        child = node.children[key]
        score = child.total / child.visits + exploration * math.sqrt(
            math.log(child.avail) / child.visits
        )
        if score > best_score:
            best, best_score = (key, action), score
    assert best is not None
    return best


def best_on_common_samples(
    candidates: Sequence[Action],
    samples: int,
    rng: random.Random,
    world: Callable[[random.Random], State],
    value: Callable[[State, Action, int], float],
    deadline: Deadline | None = None,
) -> Action:
    """The candidate with the best total ``value`` over ``samples`` sampled worlds (fewer if
    ``deadline()`` says stop); on equal totals, the first. Every candidate meets the same
    worlds and the same generator seed per world (*common random numbers*), so their
    differences are not luck: the rollout searches of Castles Besieged and Siege the King."""
    totals = [0.0] * len(candidates)
    for done in range(samples):
        if done and deadline is not None and deadline():
            break
        sampled = world(rng)
        seed = rng.getrandbits(64)
        for j, action in enumerate(candidates):
            totals[j] += value(sampled, action, seed)
    best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
    return candidates[best]


def result_rewards(game: Game, state: State, seats: int) -> list[float] | None:
    """1 shared among the winners (a draw: 1/2 each of two; a solo loss: 0), or None while the
    game runs."""
    result = game.result(state)
    if result is None:
        return None
    if not result.winners:
        return [0.5 if seats > 1 else 0.0] * seats
    share = 1.0 / len(result.winners)
    return [share if s in result.winners else 0.0 for s in range(seats)]


def squash(x: float) -> float:
    """A score difference as a reward in (0, 1): the logistic curve."""
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))
