"""Brute-force reference of the bounded encodings' notions, on *any* truth table, and samplers.

The encodings define every notion locally, gate by gate, so each is a function of an
arbitrary table, monotone or not: X is a *minimal point* when f(X) = 1 and f(X \\ {i}) = 0
for every i in X; U is the union of the minimal points; exact(R) is f(E \\ R) = 0;
influence(R) is "R meets U" (or the recorded set A for ``refined``). On a monotone table
these are the notions of docs/design.md section 2 (and :mod:`proofs.quantities` checks them
against :mod:`theory.semantics.revision`); on a non-monotone one they are still well defined, and that is what
lets the *negated assertion* of a proved statement be tested at all: no monotone table
satisfies it (that is the theorem), so only non-monotone tables show whether the emitted
assertion accepts exactly the tables its definition says.

Tables are tuples of bools indexed by subset mask (bit i of X: item i is in X); an ancestor
set is a bit mask.

>>> negation("boundary", (False, True, True, False), 2, 0)  # non-monotone: f({e1,e2}) = 0
False
>>> negation("boundary~at_most_two", (False, True, True, True), 2, 0)  # e1 OR e2: a counterexample
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

Table = tuple[bool, ...]


@dataclass(frozen=True)
class Facts:
    """The local notions of one table (and one ancestor mask)."""

    minimal: tuple[int, ...]
    union: int
    exact: tuple[bool, ...]
    influence: tuple[bool, ...]  # over U, or over A for ``refined``

    @property
    def agree(self) -> bool:
        return self.exact == self.influence

    @property
    def unique(self) -> bool:
        return len(self.minimal) == 1


def facts(table: Table, n: int, ancestors: int | None = None) -> Facts:
    """Minimal points, U, exact and influence per audit mask, as the encodings define them."""
    size = 1 << n
    full = size - 1
    minimal = tuple(
        x
        for x in range(size)
        if table[x] and not any(table[x & ~(1 << i)] for i in range(n) if x >> i & 1)
    )
    union = 0
    for x in minimal:
        union |= x
    members = union if ancestors is None else ancestors
    return Facts(
        minimal,
        union,
        tuple(not table[full & ~r] for r in range(size)),
        tuple(bool(r & members) for r in range(size)),
    )


def is_monotone(table: Table, n: int) -> bool:
    return all(table[x | 1 << i] for x in range(1 << n) if table[x] for i in range(n))


Sides = dict[str, tuple[bool, ...]]


def sides(name: str, table: Table, n: int, ancestors: int) -> Sides:
    """The quantities statement ``name``'s negated assertion is made of, on ``table``: for an
    iff (``boundary``, ``refined``) its two sides ``agree`` and ``claim``; for ``inclusion``
    ``bad`` (per audit mask R: exact retires c and influence keeps it, or the swap for its
    mutant); for ``one_item`` ``differ`` (per R: exact and influence disagree)."""
    base = name.split("~")[0]
    f = facts(table, n, ancestors if base == "refined" else None)
    size = 1 << n
    if base == "boundary":
        claim = f.unique if name == "boundary" else len(f.minimal) <= 2
        return {"agree": (f.agree,), "claim": (claim,)}
    if base == "refined":
        claim = f.unique and ancestors == f.union if name == "refined" else f.unique
        return {"agree": (f.agree,), "claim": (claim,)}
    if base == "inclusion":
        if name == "inclusion":
            return {"bad": tuple(f.exact[r] and not f.influence[r] for r in range(size))}
        return {"bad": tuple(f.influence[r] and not f.exact[r] for r in range(size))}
    if base == "one_item":
        return {"differ": tuple(f.exact[r] != f.influence[r] for r in range(size))}
    raise ValueError(f"unknown statement {name!r}")


def negation_of_sides(name: str, values: Sides, n: int) -> bool:
    """The negated assertion of statement ``name`` as a function of its sides (any values,
    not only those a table gives): what the emitted assertion must compute from them."""
    base = name.split("~")[0]
    if base in ("boundary", "refined"):
        return values["agree"][0] != values["claim"][0]
    if base == "inclusion":
        return any(values["bad"])
    if base == "one_item":
        differ = values["differ"]
        if name == "one_item":
            return any(differ) and not any(differ[1 << i] for i in range(n))
        return any(differ) and not differ[(1 << n) - 1]
    raise ValueError(f"unknown statement {name!r}")


def negation(name: str, table: Table, n: int, ancestors: int) -> bool:
    """The value of statement ``name``'s negated assertion (the part after the body)."""
    return negation_of_sides(name, sides(name, table, n, ancestors), n)


def side_conditions(name: str, table: Table, n: int, ancestors: int) -> bool:
    """The body's conditions besides monotonicity: active, and A ⊇ U for ``refined``."""
    if not table[(1 << n) - 1]:
        return False
    if name.startswith("refined"):
        union = facts(table, n).union
        return ancestors & union == union
    return True


def body(name: str, table: Table, n: int, ancestors: int) -> bool:
    """What the body must accept: a monotone table meeting the side conditions."""
    return is_monotone(table, n) and side_conditions(name, table, n, ancestors)


def open_formula(name: str, table: Table, n: int, ancestors: int) -> bool:
    """What body-without-monotonicity plus the negated assertion must accept."""
    return side_conditions(name, table, n, ancestors) and negation(name, table, n, ancestors)


# --- samplers ---------------------------------------------------------------------------


def upward_closure(family: list[int], n: int) -> Table:
    return tuple(any(x & s == s for s in family) for x in range(1 << n))


def structured(n: int) -> list[Table]:
    """Monotone functions every sample starts with: the constant true function, one item, a
    conjunction of all items, the disjunction of all items (n minimal points), two disjoint
    halves, and a threshold at two (the last three are invariant under many renamings)."""
    full = (1 << n) - 1
    half = sum(1 << i for i in range(0, n, 2))
    tables = [
        upward_closure([0], n),
        upward_closure([1], n),
        upward_closure([full], n),
        upward_closure([1 << i for i in range(n)], n),
        upward_closure([half, full & ~half] if full & ~half else [half], n),
    ]
    if n >= 2:
        tables.append(upward_closure([(1 << i) | (1 << j) for i in range(n) for j in range(i)], n))
    return tables


def random_monotone(n: int, rng: random.Random) -> Table:
    """The upward closure of 1..5 random sets (random sizes), never the constant false."""
    family = [
        rng.getrandbits(n) & rng.getrandbits(n) | rng.getrandbits(n) & rng.getrandbits(n)
        for _ in range(rng.randint(1, 5))
    ]
    return upward_closure(family, n)


def flipped(table: Table, flips: int, rng: random.Random) -> Table:
    """``table`` with ``flips`` random entries flipped (usually no longer monotone)."""
    bits = list(table)
    for x in rng.sample(range(len(bits)), min(flips, len(bits))):
        bits[x] = not bits[x]
    return tuple(bits)


def dented(n: int, rng: random.Random) -> Table:
    """A monotone function with one entry X above a minimal point set to 0 (X ≠ E, and
    |E \\ X| >= 2 where possible). The audit E \\ X then retires c exactly but misses U:
    a table on which the negated assertions of Theorem 1, ``refined`` (with A = U),
    ``inclusion`` and ``one_item`` hold, though it is not monotone."""
    full = (1 << n) - 1
    point = rng.getrandbits(n) & rng.getrandbits(n)
    family = [point] + [rng.getrandbits(n) for _ in range(rng.randint(0, 1))]
    table = list(upward_closure(family, n))
    above = [x for x in range(1 << n) if x & point == point and x not in (point, full)]
    wide = [x for x in above if bin(full & ~x).count("1") >= 2]
    if wide or above:
        table[rng.choice(wide or above)] = False
    return tuple(table)


def structured_dents(n: int) -> list[Table]:
    """Deterministic :func:`dented` tables: the closure of one small point (∅, {e1}, {e1,e2},
    {en}) with the entry of that point plus its lowest missing item set to 0."""
    full = (1 << n) - 1
    tables = []
    for point in sorted({0, 1, 3 & full, 1 << (n - 1)}):
        missing = [i for i in range(n) if not point >> i & 1]
        if not missing:
            continue
        dent = point | 1 << missing[0]
        if dent == full:
            continue
        table = list(upward_closure([point], n))
        table[dent] = False
        tables.append(tuple(table))
    return tables


def monotone_tables(n: int) -> list[Table]:
    """Every monotone function of n items (Dedekind's number of them: 7,581 for n = 5), built
    as pairs f0 <= f1 of functions of n - 1 items (the table of f is f0's then f1's)."""
    tables: list[Table] = [(False,), (True,)]
    for _ in range(n):
        tables = [
            low + high
            for low in tables
            for high in tables
            if all(h or not lo for lo, h in zip(low, high))
        ]
    return tables


def permuted(table: Table, order: list[int], n: int) -> Table:
    """``table`` with item i renamed ``order[i]`` (a member of its orbit under renamings)."""
    result = [False] * (1 << n)
    for x, bit in enumerate(table):
        y = 0
        for i in range(n):
            if x >> i & 1:
                y |= 1 << order[i]
        result[y] = bit
    return tuple(result)


def orbit_samples(n: int, count: int, seed: int = 0) -> list[Table]:
    """``count`` active monotone functions for n too large to list them all: the structured
    ones, then random ones, each followed by a random renaming of it (a sampled orbit)."""
    rng = random.Random(f"orbits/{n}/{seed}")
    tables = [t for t in structured(n) if t[-1]]
    while len(tables) < count:
        table = random_monotone(n, rng)
        order = list(range(n))
        rng.shuffle(order)
        tables += [table, permuted(table, order, n)]
    return tables[:count]


def ancestor_choices(name: str, table: Table, n: int, rng: random.Random) -> list[int]:
    """A for ``refined``: U itself, U plus random items, and a random set (maybe not ⊇ U);
    0 for the other statements (they have no ancestor variables)."""
    if not name.startswith("refined"):
        return [0]
    union = facts(table, n).union
    return [union, union | rng.getrandbits(n), rng.getrandbits(n)]


def samples(name: str, n: int, count: int, seed: int = 0) -> Iterator[tuple[Table, int]]:
    """(table, ancestors) pairs: the structured monotone functions, random monotone ones, the
    same with one to three entries flipped, :func:`structured_dents` and :func:`dented` ones
    and raw random tables with f(E) = 1; about ``count`` tables in all, each with :func:`ancestor_choices`."""
    rng = random.Random(f"{name}/{n}/{seed}")
    size = 1 << n
    tables = structured(n) + structured_dents(n)
    while len(tables) < count:
        kind = len(tables) % 6
        base = random_monotone(n, rng)
        if kind == 0:
            tables.append(base)
        elif kind == 1:
            tables.append(flipped(base, rng.randint(1, 3), rng))
        elif kind in (2, 3, 4):
            tables.append(dented(n, rng))
        else:
            raw = [rng.random() < 0.5 for _ in range(size)]
            raw[size - 1] = True
            tables.append(tuple(raw))
    for table in tables:
        for ancestors in ancestor_choices(name, table, n, rng):
            yield table, ancestors


def all_tables(n: int) -> Iterator[Table]:
    """Every table on n items (2^(2^n) of them: use for n <= 3)."""
    size = 1 << n
    for code in range(1 << size):
        yield tuple(bool(code >> x & 1) for x in range(size))
