"""The project's one memo: values computed once and kept, and the one rule for what a kept value is keyed by.

Every layer keeps values the same way (this module sits in the data side, the lowest layer every other layer
may import; ``wording`` only keeps pure functions of strings, see below):

- An argument or key part counts **by value** (a series id, a date, a language, a view: a dataclass by its
  fields), and one that cannot be hashed is refused, loudly, rather than left out of the key.
- A read-only object whose contents would cost more to hash than most values kept (a data frame, the
  snapshot, the Places join: any class that sets ``MEMO_BY_IDENTITY = True``) counts **by identity**, and the
  entry **holds the object itself**: while the entry lives the object lives, so its ``id`` cannot be given to
  another object, and a later object that happens to get the same ``id`` after it was dropped can never match.
- Where entries can grow (a key with a day or a view in it), the memo has a **bound** and drops the least
  recently used entry first.

The pieces:

- ``kept(size)`` decorates a function whose arguments follow that rule (the page's shared values,
  ``page.cache``).
- ``Memo`` is a memo that lives on one read-only object (``Snapshot.memo``, ``Rendered.memo``): its keys are
  values, and the object it describes is implicit, since the memo dies with it. ``memo.keep(key, build)``
  returns the kept value or builds, keeps and returns it.
- A pure function of hashable values alone (no frames, no snapshot; a file read once per process, a language's
  catalogue) may use ``functools.lru_cache``: that is exactly the rule above with every argument by value, and
  ``maxsize`` is its bound (None only where the arguments come from a fixed set, such as the languages).

Kept values are shared between callers, sessions and threads: read them, never change them. Two threads asking
at once for a value not kept yet may both build it; either result is the same.
"""
from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import pandas as pd

T = TypeVar("T")

# Read-only objects counted by identity without saying so (classes of this project set MEMO_BY_IDENTITY).
BY_IDENTITY: tuple[type, ...] = (pd.DataFrame, pd.Series, pd.Index)

_MISSING = object()


def by_identity(value) -> bool:
    """Whether ``value`` counts by identity in a key (see the module's docstring)."""
    return isinstance(value, BY_IDENTITY) or getattr(type(value), "MEMO_BY_IDENTITY", False) is True


class Store:
    """A thread-safe map from keys to kept values, bounded (least recently used out first) when ``size`` is
    given; each entry also holds the objects its key counts by identity (``held``)."""

    def __init__(self, size: int | None):
        self._size, self._lock = size, threading.Lock()
        self._entries: OrderedDict[Any, tuple[tuple, Any]] = OrderedDict()

    def get(self, key: Hashable, held: tuple = ()):
        """The value kept under ``key`` for the very objects ``held``, or ``MISSING``."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or (held or hit[0]) and any(a is not b for a, b in zip(hit[0], held, strict=True)):
                return _MISSING
            if self._size is not None:
                self._entries.move_to_end(key)
            return hit[1]

    def put(self, key: Hashable, held: tuple, value) -> None:
        with self._lock:
            self._entries[key] = (held, value)
            if self._size is not None:
                self._entries.move_to_end(key)
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def items(self) -> list[tuple[Any, Any]]:
        """(key, value) of every kept entry, oldest first."""
        with self._lock:
            return [(key, hit[1]) for key, hit in self._entries.items()]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


MISSING = _MISSING


class Memo:
    """Values kept on one read-only object, keyed by value (a hashable key: names, ids, dates, options).

    The memo is an attribute of the object it describes, so it cannot outlive it or answer for another one.
    ``size`` bounds it where its keys can grow (least recently used out first). A hit is a dictionary lookup
    with no lock (the snapshot's lookups run thousands of times per page run); only adding takes the lock."""

    __slots__ = ("_size", "_lock", "_entries")

    def __init__(self, size: int | None = None):
        self._size, self._lock = size, threading.Lock()
        self._entries: OrderedDict[Any, Any] = OrderedDict()

    def keep(self, key: Hashable, build: Callable[[], T]) -> T:
        """The value kept under ``key``; else ``build()``, kept under it and returned."""
        try:
            value = self._entries[key]
        except KeyError:
            value = build()
            with self._lock:
                self._entries[key] = value
                if self._size is not None and len(self._entries) > self._size:
                    self._entries.popitem(last=False)
            return value
        if self._size is not None:
            # Not contextlib.suppress: this runs on every hit, and a bare try costs a fifth of it.
            try:  # noqa: SIM105
                self._entries.move_to_end(key)
            except KeyError:  # dropped by another thread meanwhile: the value in hand is still the right one
                pass
        return value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def items(self) -> list[tuple[Any, Any]]:
        """(key, value) of every kept entry, least recently used first."""
        with self._lock:
            return list(self._entries.items())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __repr__(self) -> str:
        return f"Memo({len(self)} kept)"


def key_of(args: tuple, kwargs: dict) -> tuple[tuple, tuple]:
    """(key, held): the key of a call under the one rule, and the objects it counts by identity."""
    held: list = []
    key = tuple((name, _part(name, value, held)) for name, value in [*enumerate(args), *sorted(kwargs.items())])
    return key, tuple(held)


def _part(name, value, held: list):
    if by_identity(value):
        held.append(value)
        return ("same object", id(value))
    if hasattr(value, "cache_key"):  # an object made from read-only inputs says which (page.context.Page)
        return (type(value).__name__, _part(name, value.cache_key(), held))
    if isinstance(value, tuple):
        return tuple(_part(name, v, held) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, repr(value))  # by its fields, lists included
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"memo: argument {name!r} ({type(value).__name__}) cannot be part of a key; "
                        "pass something hashable, or a read-only frame or snapshot") from None
    return value


def kept(size: int | None = None) -> Callable:
    """Decorate a function of read-only objects and values: each value is built once per key (``key_of``) and
    shared; ``size`` bounds how many are kept (None: all). The wrapper has ``clear()`` and ``holds(*args)``."""
    def wrap(fn: Callable) -> Callable:
        store = Store(size)

        @functools.wraps(fn)
        def call(*args, **kwargs) -> Any:
            key, held = key_of(args, kwargs)
            value = store.get(key, held)
            if value is _MISSING:
                value = fn(*args, **kwargs)
                store.put(key, held, value)
            return value

        def holds(*args, **kwargs) -> bool:
            return key_of(args, kwargs)[0] in store

        call.clear = store.clear  # type: ignore[attr-defined]
        call.holds = holds  # type: ignore[attr-defined]
        return call
    return wrap
