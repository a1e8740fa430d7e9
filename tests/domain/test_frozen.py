"""one_step_init builds the very instances the dataclass's own __init__ builds."""
from __future__ import annotations

import dataclasses
import inspect

import pytest

from domain.codec import added
from domain.orleans.memo import one_step_init
from domain.orleans.model import COMMANDS, EVENTS, Placement, Player, State


@dataclasses.dataclass(frozen=True)
class Plain:
    seat: int
    name: str = "x"
    flag: bool = added(False)


Reference = dataclasses.make_dataclass(
    "Reference", [("seat", int), ("name", str, dataclasses.field(default="x")),
                  ("flag", bool, dataclasses.field(default=False))], frozen=True)
one_step_init(Plain)


@pytest.mark.parametrize(("args", "kwargs"), [((1,), {}), ((1, "y"), {}), ((1,), {"flag": True}),
                                              ((), {"seat": 2, "name": "z", "flag": True})])
def test_the_same_fields_defaults_and_dict_order(args, kwargs):
    built, reference = Plain(*args, **kwargs), Reference(*args, **kwargs)
    assert list(built.__dict__.items()) == list(reference.__dict__.items())
    assert built == Plain(*args, **kwargs) and hash(built) == hash(Plain(*args, **kwargs))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.seat = 3


def test_the_same_signature_and_errors():
    assert str(inspect.signature(Plain)) == "(seat, name='x', flag=False)"
    with pytest.raises(TypeError):
        Plain()
    with pytest.raises(TypeError):
        Plain(1, nope=2)


def test_what_it_cannot_build_the_same_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Later:
        seat: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True)
    class Factory:
        seats: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Keyword:
        seat: int = dataclasses.field(kw_only=True)

    @dataclasses.dataclass
    class Mutable:
        seat: int

    for cls in (Later, Factory, Keyword, Mutable):
        with pytest.raises(TypeError):
            one_step_init(cls)


def test_orleans_records_use_it_but_events_keep_the_dataclass_init():
    for cls in (Player, State, *COMMANDS):
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        assert cls.__init__.__code__.co_names == ("_set",), cls
    for cls in (Placement, *EVENTS):
        assert cls.__init__.__code__.co_names != ("_set",), cls


def test_shared_constructors_give_one_instance_per_value():
    from domain.orleans.data import Tile
    from domain.orleans.model import PLACED, PLACEMENT, FollowerPlaced, Placement

    placed = PLACED(0, Tile.FARMER, "farm_house", 1)
    assert placed is PLACED(0, Tile.FARMER, "farm_house", 1) == FollowerPlaced(0, Tile.FARMER, "farm_house", 1)
    assert PLACED(1, Tile.FARMER, "farm_house", 1) != placed
    assert PLACEMENT(Tile.MONK, "castle", 2) is PLACEMENT(Tile.MONK, "castle", 2) == Placement(Tile.MONK, "castle", 2)
    assert type(PLACED(0, "farmer", "farm_house", 1).tile) is str  # typed: a plain str is not the Tile
