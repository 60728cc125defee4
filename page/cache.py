"""The page's one cache: values built from the page's read-only inputs, shared by every session and thread.

One keying rule, for every cached function of the page: a value is kept per function and arguments, where

- the page's read-only objects (the snapshot, the Places join, a data frame such as the events in force) count
  by identity,
  and the entry holds on to the object itself, so a later object that happens to get the same ``id`` can
  never match it (hashing their contents would cost more than most of the values kept);
- every other argument counts by value (a view, a date, a language; a dataclass such as a view by its
  fields); one that cannot be hashed is refused, loudly, rather than left out of the key.

Not ``st.cache_resource``: that cache leaves arguments named with a leading underscore out of the key (a
snapshot passed as ``_snap`` matched whatever snapshot came before), and it needs a script run, which the
background worker that builds the other presets of a view (``page.context.prefetch``) does not have.
"""
from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from typing import Any, Callable

import pandas as pd

from views.data import READ_ONLY

# Read-only objects of the page, keyed by identity (see the module's docstring): the snapshot, the facility join
# built from it, and data frames.
BY_IDENTITY = (*READ_ONLY, pd.DataFrame, pd.Series)


_MISSING = object()


class Store:
    """A bounded (least recently used out first), thread-safe map from keys to kept values."""

    def __init__(self, size: int | None):
        self._size, self._lock = size, threading.Lock()
        self._entries: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: tuple, held: tuple):
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or any(a is not b for a, b in zip(hit[0], held, strict=True)):
                return _MISSING
            self._entries.move_to_end(key)
            return hit[1]

    def put(self, key: tuple, held: tuple, value) -> None:
        with self._lock:
            self._entries[key] = (held, value)
            self._entries.move_to_end(key)
            while self._size is not None and len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def __contains__(self, key: tuple) -> bool:
        with self._lock:
            return key in self._entries

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def key_of(args: tuple, kwargs: dict) -> tuple[tuple, tuple]:
    """(key, held): the key of a call under the page's one rule, and the objects it counts by identity."""
    held: list = []
    key = tuple((name, _part(name, value, held)) for name, value in [*enumerate(args), *sorted(kwargs.items())])
    return key, tuple(held)


def _part(name, value, held: list):
    if isinstance(value, BY_IDENTITY):
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
        raise TypeError(f"page cache: argument {name!r} ({type(value).__name__}) cannot be part of a key; "
                        "pass something hashable, or a read-only frame or snapshot") from None
    return value


def kept(size: int | None = None) -> Callable:
    """Decorate a function of the page's read-only inputs: each value is built once per key (``key_of``) and
    shared; ``size`` bounds how many are kept (None: all). Two sessions asking at once for a value not kept
    yet may both build it; either result is the same. The wrapper has ``clear()`` and ``holds(*args)``."""
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
