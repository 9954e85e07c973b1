"""Playing a solution back, move by move: where it stands, and the commands that move it.

One ``Playback`` per solve, kept by the web tier (webapp/web/watch.py) beside the solve's job, so
that a page that reconnects resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webapp.games.base import Game

#: Playback speeds offered, in moves per second.
SPEEDS = (0.5, 1, 2, 4, 8, 12, 20)


@dataclass
class Playback:
    """The positions of a solution (the start first) and where the playback stands."""

    states: list[Any] = field(default_factory=list)
    position: int = 0
    playing: bool = False
    speed: float = 4.0
    next_at: float = 0.0

    @property
    def last(self) -> int:
        return len(self.states) - 1

    @property
    def state(self) -> Any:
        return self.states[self.position]

    def play(self) -> None:
        """Play from here (from the start again when at the end)."""
        if self.position >= self.last:
            self.position = 0
        self.playing = True
        self.next_at = 0.0

    def pause(self) -> None:
        self.playing = False

    def step(self, moves: int) -> None:
        """Pause and go ``moves`` forward (back when negative), within the solution."""
        self.seek(self.position + moves)

    def seek(self, position: int) -> None:
        """Pause and go to the position after ``position`` moves."""
        self.playing = False
        self.position = min(self.last, max(0, position))

    def set_speed(self, speed: float) -> None:
        self.speed = min(max(SPEEDS), max(min(SPEEDS), speed))

    def advance(self, now: float) -> bool:
        """Play the move due by ``now`` (monotonic seconds); whether anything changed."""
        if not self.playing or now < self.next_at:
            return False
        if self.position < self.last:
            self.position += 1
            self.next_at = now + 1.0 / self.speed
        else:
            self.playing = False
        return True


def solution_playback(game: Game, level: Any, start: list[str], solution: list[str]) -> Playback:
    """A playback of ``solution`` from the position after the moves ``start``."""
    state = game.replay(level, start)
    states = [state]
    for token in solution:
        state = game.apply(level, state, token)
        states.append(state)
    return Playback(states=states)
