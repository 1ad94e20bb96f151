# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The counting boundary's brute force over a batch of graphs, compiled ahead of time (Cython).

For each graph (a row of candidate indices, ``K`` or more is padding) and every audit ``R`` of
its nodes, as bit masks over node numbers (evidence ``0 .. E - 1``, then the claims):

- ``alive_R``: exact revision's active set (least fixpoint from the evidence outside ``R``,
  the nodes of ``R`` forced out);
- ``counting_R``: Datalog Counting's (greatest supported subset of ``S0 \\ R``: drop a claim
  with no justification whose antecedents all remain, until nothing changes);
- the *definition*: claims in ``counting_R \\ alive_R`` (counting keeps them, exact retires
  them), or-ed per audit domain: evidence (``R`` within the evidence), claims, all nodes;
- the *criterion*, searched on its own: every set ``L`` of claims in ``S0``, outside ``R``
  and ``alive_R``, each member of which has a justification with every antecedent in ``L`` or
  ``alive_R`` (Theorem 2's witness); the members of some such ``L``, or-ed per domain; and
  the members of such an ``L`` that has no justification with an antecedent in ``L`` and
  the rest in ``L`` or ``alive_R`` (the theorem's support loop missing: always none).
"""

from libc.stdint cimport int32_t


def counting_boundary(
    const int32_t[:, ::1] rows,
    const int32_t[::1] heads,
    const int32_t[::1] masks,
    int evidence,
    int claims,
    int32_t[::1] out_active,
    int32_t[:, ::1] out_definition,
    int32_t[:, ::1] out_criterion,
    int32_t[::1] out_loopless,
) -> None:
    """Fill, per graph ``g``: ``out_active[g]`` the claims active before any audit,
    ``out_definition[g, d]`` and ``out_criterion[g, d]`` the claims counting-unsafe for audit
    domain ``d`` (0 evidence, 1 claims, 2 all nodes) by the definition and by the witness
    search, ``out_loopless[g]`` the claims of a witness without a support loop."""
    cdef Py_ssize_t n = rows.shape[0], width = rows.shape[1], K = heads.shape[0]
    cdef int nodes = evidence + claims
    cdef int32_t ev = (1 << evidence) - 1
    cdef int32_t cl = ((1 << nodes) - 1) & ~ev
    cdef int32_t h[64]
    cdef int32_t a[64]
    cdef Py_ssize_t g, i
    cdef int nj, j, changed
    cdef int32_t R, S0, alive, keep, support, cand, L, base, looped, diff, found, loopless
    cdef int32_t defn0, defn1, defn2, crit0, crit1, crit2
    if width > 64:
        raise ValueError("at most 64 justifications a graph")
    with nogil:
        for g in range(n):
            nj = 0
            for i in range(width):
                if rows[g, i] < K:
                    h[nj] = heads[rows[g, i]]
                    a[nj] = masks[rows[g, i]]
                    nj += 1
            # S0: the least fixpoint with every piece of evidence
            S0 = ev
            changed = 1
            while changed:
                changed = 0
                for j in range(nj):
                    if not (S0 >> h[j]) & 1 and (a[j] & ~S0) == 0:
                        S0 |= 1 << h[j]
                        changed = 1
            defn0 = defn1 = defn2 = crit0 = crit1 = crit2 = loopless = 0
            for R in range(1, 1 << nodes):
                # exact: least fixpoint from the evidence outside R, R forced out
                alive = ev & ~R
                changed = 1
                while changed:
                    changed = 0
                    for j in range(nj):
                        if (
                            not (alive >> h[j]) & 1
                            and not (R >> h[j]) & 1
                            and (a[j] & ~alive) == 0
                        ):
                            alive |= 1 << h[j]
                            changed = 1
                # counting: the greatest supported subset of S0 \ R
                keep = S0 & ~R
                while True:
                    support = 0
                    for j in range(nj):
                        if (a[j] & ~keep) == 0:
                            support |= 1 << h[j]
                    if (keep & ~(ev | support)) == 0:
                        break
                    keep &= ev | support
                diff = keep & ~alive & cl
                # the criterion: every L within the candidates, each member supported by L
                # and alive_R (the sub-masks of cand, largest first)
                found = 0
                cand = S0 & ~R & ~alive & cl
                L = cand
                while L:
                    base = L | alive
                    support = 0
                    looped = 0
                    for j in range(nj):
                        if (a[j] & ~base) == 0:
                            support |= 1 << h[j]
                            if a[j] & L:
                                looped |= 1 << h[j]
                    if (L & ~support) == 0:
                        found |= L
                        loopless |= L & ~looped
                    L = (L - 1) & cand
                if (R & ~ev) == 0:
                    defn0 |= diff
                    crit0 |= found
                if (R & ev) == 0:
                    defn1 |= diff
                    crit1 |= found
                defn2 |= diff
                crit2 |= found
            out_active[g] = S0 & cl
            out_definition[g, 0] = defn0
            out_definition[g, 1] = defn1
            out_definition[g, 2] = defn2
            out_criterion[g, 0] = crit0
            out_criterion[g, 1] = crit1
            out_criterion[g, 2] = crit2
            out_loopless[g] = loopless
