"""Base of every generated message class: an immutable tuple with named fields.

A tuple subclass is the cheapest immutable object Python can build (decode makes millions of them);
equality and hashing leave out the fields encode derives (lengths, discriminators), so a message built
by hand without them equals the same message decoded from the wire.
"""
from __future__ import annotations

from operator import itemgetter

_tuple_new = tuple.__new__


def _rebuild(cls, values):
    return _tuple_new(cls, values)


class Message(tuple):
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _compared: tuple[int, ...] = ()  # indices of the fields equality looks at

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if len(cls._compared) > 1:
            cls._key = staticmethod(itemgetter(*cls._compared))
        else:  # itemgetter of one index returns a bare value, of none it cannot be built
            cls._key = staticmethod(lambda values, indices=cls._compared: tuple(values[i] for i in indices))

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key(self) == self._key(other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash((type(self).__name__, self._key(self)))

    def __repr__(self):
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"{type(self).__name__}({inner})"

    def __reduce__(self):
        return _rebuild, (type(self), tuple(self))

    def _replace(self, **changes):
        """A copy with some fields changed; derived fields (lengths, counts) are cleared unless given, so
        encode derives them again from the new values."""
        derived = {info.name for info in getattr(type(self), "FIELDS", ()) if info.derived}
        values = {name: None if name in derived else value for name, value in zip(self._fields, self)}
        values.update(changes)
        return type(self)(**values)

    def _asdict(self) -> dict:
        return dict(zip(self._fields, self))
