(** * Memory graphs: the least-fixpoint support function and the evidence ancestors.

    DESIGN.md section 2: a justification [c <- a1 AND a2 ...] is a pair (c, [a1; a2; ...]);
    several justifications of one claim are alternatives; the active state is the least
    fixpoint (well-founded support: claims that only support each other are not active).
    Here the active state under active evidence X is the inductive predicate [active X],
    which is by construction the least set closed under the two rules ([active_least]).

    Main results: [support_monotone] (the support function f_c(X) = "c is active when the
    evidence X is active" is monotone) and [minimal_justifications_are_ancestors] (every
    item of every minimal justification of c is an evidence ancestor of c along
    antecedent -> claim edges: the recorded ancestor set A contains the union U, the
    hypothesis [A_covers] of [Boundary.refined]). The latter uses the standard library's
    excluded middle ([Coq.Logic.Classical_Prop.classic]) once, for a proof by contradiction. *)

Require Import List Arith Classical_Prop.
Import ListNotations.

Section Graph.

Variable evidence : nat -> Prop.
Variable justifications : list (nat * list nat).

Inductive active (X : nat -> Prop) : nat -> Prop :=
| active_evidence : forall e, evidence e -> X e -> active X e
| active_claim : forall c ants, In (c, ants) justifications ->
    (forall a, In a ants -> active X a) -> active X c.

(** [active X] is the least set closed under the rules: any closed set contains it. *)
Theorem active_least : forall (X P : nat -> Prop),
  (forall e, evidence e -> X e -> P e) ->
  (forall c ants, In (c, ants) justifications -> (forall a, In a ants -> P a) -> P c) ->
  forall n, active X n -> P n.
Proof.
  intros X P Hev Hcl n H. induction H as [e He HX|c ants Hin Hants IH].
  - exact (Hev e He HX).
  - exact (Hcl c ants Hin IH).
Qed.

Lemma active_mono : forall (X Y : nat -> Prop), (forall x, X x -> Y x) ->
  forall n, active X n -> active Y n.
Proof.
  intros X Y HXY n H. induction H as [e He HX|c ants Hin Hants IH].
  - apply active_evidence; auto.
  - apply (active_claim Y c ants Hin IH).
Qed.

(** The support function of claim c on finite evidence sets. *)
Definition supports (X : list nat) (c : nat) : Prop := active (fun x => In x X) c.

Theorem support_monotone : forall X Y c, incl X Y -> supports X c -> supports Y c.
Proof. intros X Y c HXY. apply active_mono. exact HXY. Qed.

(** a is an ancestor of n: a path a -> ... -> n along antecedent -> claim edges. *)
Inductive ancestor : nat -> nat -> Prop :=
| ancestor_edge : forall c ants a, In (c, ants) justifications -> In a ants -> ancestor a c
| ancestor_step : forall c ants a b, In (c, ants) justifications -> In b ants ->
    ancestor a b -> ancestor a c.

(** A minimal justification of c: evidence only, enough for c, and no item can be dropped. *)
Definition minimal_justification (c : nat) (M : list nat) : Prop :=
  (forall x, In x M -> evidence x) /\ supports M c /\
  forall i, In i M -> ~ supports (remove Nat.eq_dec i M) c.

(** Removing an item e that is neither n nor an ancestor of n does not change n's status. *)
Lemma irrelevant_item : forall X e n, active X n -> n <> e -> ~ ancestor e n ->
  active (fun x => X x /\ x <> e) n.
Proof.
  intros X e n H. induction H as [x Hev HX|c ants Hin Hants IH]; intros Hne Hnanc.
  - apply active_evidence; auto.
  - apply (active_claim _ c ants Hin). intros a Ha. apply IH; [exact Ha| |].
    + intros Heq. subst. apply Hnanc. exact (ancestor_edge c ants e Hin Ha).
    + intros Hanc. apply Hnanc. exact (ancestor_step c ants e a Hin Ha Hanc).
Qed.

Theorem minimal_justifications_are_ancestors : forall c M e,
  ~ evidence c -> minimal_justification c M -> In e M -> ancestor e c.
Proof.
  intros c M e Hc [Hev [Hsup Hmin]] He. apply NNPP. intros Hn.
  apply (Hmin e He). unfold supports.
  apply (active_mono (fun x => In x M /\ x <> e)).
  - intros x [Hx Hne]. apply in_in_remove; assumption.
  - apply irrelevant_item; [exact Hsup| |exact Hn].
    intros Heq. subst. exact (Hc (Hev e He)).
Qed.

End Graph.
