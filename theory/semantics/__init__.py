"""The semantics: the least-fixpoint active state, the revision rules, conflicts and diagnoses."""
