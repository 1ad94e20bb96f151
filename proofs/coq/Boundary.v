(** * The justification boundary (DESIGN.md section 1 and 2), for every finite evidence set.

    Evidence items are natural numbers; the evidence set [E] and every audit, justification
    and ancestor set are finite lists of them (read as sets: order and repetition never
    matter, because everything below is stated through [In]). The claim's support function
    is an arbitrary decidable predicate [f] on evidence sets that is monotone, which is all
    DESIGN.md says of it ("It is monotone"); [Graph.v] shows the least-fixpoint support
    function of a memory graph is monotone.

    - [exact R]       exact revision of audit R retires c:  f (E \ R) = false
    - [meets R A]     influence revision retires c: R meets the evidence ancestors A
    - [minimal X]     X is a minimal justification (a minimal true set of f, inside E)
    - [inU i]         i lies in some minimal justification (the union U)
    - [agree A]       influence (over A) and exact revision agree on every audit R ⊆ E

    Main results: [boundary] (Theorem 1, both directions), [refined] (recorded ancestor set
    A ⊇ U), [inclusion], [one_item], [checker_criterion] and the violation classification
    [violation_alternative_support], [violation_redundant_influence], [safe_iff_no_violation].
    Everything here is constructive: no axioms. *)

Require Import List Arith Lia.
Import ListNotations.

Section Boundary.

Variable E : list nat.
Variable f : list nat -> bool.
Hypothesis f_mono : forall X Y, incl X Y -> f X = true -> f Y = true.

Definition minus (X R : list nat) : list nat :=
  filter (fun x => if in_dec Nat.eq_dec x R then false else true) X.

Definition minimal (X : list nat) : Prop :=
  incl X E /\ f X = true /\ forall i, In i X -> f (remove Nat.eq_dec i X) = false.

Definition inU (i : nat) : Prop := exists M, minimal M /\ In i M.

Definition exact (R : list nat) : Prop := f (minus E R) = false.

Definition meets (R : list nat) (A : nat -> Prop) : Prop := exists x, In x R /\ A x.

Definition agree (A : nat -> Prop) : Prop := forall R, incl R E -> (exact R <-> meets R A).

Definition same (X Y : list nat) : Prop := forall x, In x X <-> In x Y.

(** c has a unique minimal justification S (up to order and repetition). *)
Definition unique : Prop := exists S, minimal S /\ forall M, minimal M -> same M S.

(** ... and the ancestor set A is exactly S. *)
Definition unique_is (A : nat -> Prop) : Prop :=
  exists S, minimal S /\ (forall M, minimal M -> same M S) /\ (forall x, A x <-> In x S).

Lemma minus_spec : forall X R x, In x (minus X R) <-> In x X /\ ~ In x R.
Proof.
  intros X R x. unfold minus. rewrite filter_In.
  destruct (in_dec Nat.eq_dec x R); split; intros [H1 H2]; auto; try discriminate;
    try contradiction.
Qed.

Lemma minus_incl : forall R, incl (minus E R) E.
Proof. intros R x Hx. apply minus_spec in Hx. tauto. Qed.

(** Every true set inside E contains a minimal justification (E is finite). *)
Lemma exists_minimal_n : forall n X, length X <= n -> incl X E -> f X = true ->
  exists M, minimal M /\ incl M X.
Proof.
  induction n as [|n IH]; intros X Hlen HE Hf;
    destruct (existsb (fun i => f (remove Nat.eq_dec i X)) X) eqn:Hex.
  - apply existsb_exists in Hex. destruct Hex as [i [Hi _]].
    destruct X; [contradiction | simpl in Hlen; lia].
  - exists X. split; [|apply incl_refl]. split; [exact HE|split; [exact Hf|]].
    intros i Hi. destruct (f (remove Nat.eq_dec i X)) eqn:Hr; [|reflexivity].
    assert (existsb (fun i => f (remove Nat.eq_dec i X)) X = true)
      by (apply existsb_exists; eauto). congruence.
  - apply existsb_exists in Hex. destruct Hex as [i [Hi Hr]].
    assert (Hl := remove_length_lt Nat.eq_dec X i Hi).
    destruct (IH (remove Nat.eq_dec i X)) as [M [HM HMX]]; [lia| |exact Hr|].
    + intros y Hy. apply in_remove in Hy. apply HE. tauto.
    + exists M. split; [exact HM|]. intros y Hy. apply HMX in Hy. apply in_remove in Hy. tauto.
  - exists X. split; [|apply incl_refl]. split; [exact HE|split; [exact Hf|]].
    intros i Hi. destruct (f (remove Nat.eq_dec i X)) eqn:Hr; [|reflexivity].
    assert (existsb (fun i => f (remove Nat.eq_dec i X)) X = true)
      by (apply existsb_exists; eauto). congruence.
Qed.

Lemma exists_minimal : forall X, incl X E -> f X = true -> exists M, minimal M /\ incl M X.
Proof. intros X. apply (exists_minimal_n (length X)). lia. Qed.

Lemma minimal_in_E : forall M i, minimal M -> In i M -> In i E.
Proof. intros M i [HM _] Hi. exact (HM i Hi). Qed.

(** A true set X that avoids x keeps c alive when x alone is audited. *)
Lemma survives : forall X x, incl X E -> ~ In x X -> f X = true -> ~ exact [x].
Proof.
  intros X x HX Hx Hf Hexact. unfold exact in Hexact.
  assert (f (minus E [x]) = true) as Ht; [|congruence].
  apply (f_mono X); [|exact Hf]. intros y Hy. apply minus_spec. split; [exact (HX y Hy)|].
  intros [Heq|[]]. subst. contradiction.
Qed.

(** An audit R that names no item of a justification S (contained in E, f S = true) leaves
    the claim supported: f (E \ R) = true. *)
Lemma untouched_survives : forall S R, incl S E -> f S = true ->
  existsb (fun x => if in_dec Nat.eq_dec x S then true else false) R = false ->
  f (minus E R) = true.
Proof.
  intros S R HSE HfS Hb. apply (f_mono S); [|exact HfS].
  intros y Hy. apply minus_spec. split; [exact (HSE y Hy)|]. intros HyR.
  assert (existsb (fun x => if in_dec Nat.eq_dec x S then true else false) R = true)
    as Ht; [|congruence].
  apply existsb_exists. exists y. split; [exact HyR|].
  destruct (in_dec Nat.eq_dec y S); [reflexivity|contradiction].
Qed.

Section Ancestors.

(** A recorded ancestor set: evidence, and a superset of U. *)
Variable A : nat -> Prop.
Hypothesis A_covers : forall i, inU i -> A i.
Hypothesis A_evidence : forall i, A i -> In i E.

(** If exact revision of every one-item audit {e}, e in A, retires c, then c has a unique
    minimal justification S and A = S. *)
Lemma from_singletons : f E = true -> (forall e, A e -> exact [e]) -> unique_is A.
Proof.
  intros Hact H1.
  destruct (exists_minimal E (incl_refl E) Hact) as [S [HS _]].
  assert (Hsub : forall M, minimal M -> forall x, In x M -> In x S).
  { intros M HM x Hx. destruct (in_dec Nat.eq_dec x S) as [|Hn]; [assumption|].
    exfalso. apply (survives S x (proj1 HS) Hn (proj1 (proj2 HS))).
    apply H1, A_covers. exists M. auto. }
  exists S. split; [exact HS|split].
  - intros M HM x. split; [apply (Hsub M HM)|]. intros Hx.
    destruct (in_dec Nat.eq_dec x M) as [|Hn]; [assumption|].
    exfalso. apply (survives M x (proj1 HM) Hn (proj1 (proj2 HM))).
    apply H1, A_covers. exists S. auto.
  - intros x. split.
    + intros Hx. destruct (in_dec Nat.eq_dec x S) as [|Hn]; [assumption|].
      exfalso. exact (survives S x (proj1 HS) Hn (proj1 (proj2 HS)) (H1 x Hx)).
    + intros Hx. apply A_covers. exists S. auto.
Qed.

(** The if direction: a unique S with A = S makes influence exact on every audit. *)
Lemma unique_agree : unique_is A -> agree A.
Proof.
  intros [S [HS [Hall HAS]]] R HR. unfold exact, meets. split.
  - intros Hf.
    destruct (existsb (fun x => if in_dec Nat.eq_dec x S then true else false) R) eqn:Hb.
    + apply existsb_exists in Hb. destruct Hb as [x [HxR Hx]].
      destruct (in_dec Nat.eq_dec x S) as [HxS|]; [|discriminate].
      exists x. split; [exact HxR|]. apply HAS. exact HxS.
    + exfalso. assert (f (minus E R) = true) as Ht; [|congruence].
      exact (untouched_survives S R (proj1 HS) (proj1 (proj2 HS)) Hb).
  - intros [x [HxR HAx]]. destruct (f (minus E R)) eqn:Hf; [|reflexivity]. exfalso.
    destruct (exists_minimal (minus E R) (minus_incl R) Hf) as [M [HM HMR]].
    assert (In x M) as HxM by (apply (Hall M HM), HAS, HAx).
    apply HMR, minus_spec in HxM. tauto.
Qed.

Lemma agree_singletons : agree A -> forall e, A e -> exact [e].
Proof.
  intros Hag e He. apply (Hag [e]).
  - intros y [Hy|[]]. subst. apply A_evidence. exact He.
  - exists e. split; [left; reflexivity|exact He].
Qed.

(** The refined statement: for a recorded ancestor set A ⊇ U, influence over A agrees with
    exact revision on every audit iff c has a unique minimal justification S and A = S. *)
Theorem refined : f E = true -> (agree A <-> unique_is A).
Proof.
  intros Hact. split.
  - intros Hag. apply from_singletons; [exact Hact|]. apply agree_singletons. exact Hag.
  - apply unique_agree.
Qed.

(** none ⊆ exact ⊆ influence, claim-level content: whatever exact revision retires,
    influence revision retires too. *)
Theorem inclusion : f E = true -> forall R, incl R E -> exact R -> meets R A.
Proof.
  intros Hact R HR Hex.
  destruct (exists_minimal E (incl_refl E) Hact) as [S [HS _]].
  destruct (existsb (fun x => if in_dec Nat.eq_dec x S then true else false) R) eqn:Hb.
  - apply existsb_exists in Hb. destruct Hb as [x [HxR Hx]].
    destruct (in_dec Nat.eq_dec x S) as [HxS|]; [|discriminate].
    exists x. split; [exact HxR|]. apply A_covers. exists S. auto.
  - exfalso. unfold exact in Hex. assert (f (minus E R) = true) as Ht; [|congruence].
    exact (untouched_survives S R (proj1 HS) (proj1 (proj2 HS)) Hb).
Qed.

(** Agreement on every one-item audit implies agreement on every audit (so a disagreement
    on some audit shows on a one-item audit). *)
Theorem one_item : f E = true ->
  (forall e, In e E -> (exact [e] <-> meets [e] A)) -> agree A.
Proof.
  intros Hact H1. apply unique_agree, from_singletons; [exact Hact|].
  intros e He. apply (H1 e (A_evidence e He)). exists e. split; [left; reflexivity|exact He].
Qed.

(** DESIGN.md's checker criterion: an active c is influence-safe iff exact revision of {e}
    retires c for every evidence ancestor e. *)
Theorem checker_criterion : f E = true -> (agree A <-> forall e, A e -> exact [e]).
Proof.
  intros Hact. split.
  - apply agree_singletons.
  - intros H1. apply unique_agree, from_singletons; assumption.
Qed.

(** A violation: an evidence ancestor e whose one-item audit retires c under influence
    revision (e is in A) but not under exact revision. *)
Definition violation (e : nat) : Prop := A e /\ f (minus E [e]) = true.

Theorem safe_iff_no_violation : f E = true -> (agree A <-> forall e, ~ violation e).
Proof.
  intros Hact. rewrite (checker_criterion Hact). split.
  - intros H e [He Hf]. unfold exact in H. rewrite (H e He) in Hf. discriminate.
  - intros H e He. unfold exact. destruct (f (minus E [e])) eqn:Hf; [|reflexivity].
    exfalso. exact (H e (conj He Hf)).
Qed.

(** Kind [alternative_support]: e lies in a minimal justification, and another minimal
    justification M avoiding e survives the audit {e} (the checker reports it). *)
Theorem violation_alternative_support : forall e, violation e -> inU e ->
  exists M, minimal M /\ ~ In e M.
Proof.
  intros e [_ Hf] _.
  destruct (exists_minimal (minus E [e]) (minus_incl [e]) Hf) as [M [HM HMR]].
  exists M. split; [exact HM|]. intros HeM. apply HMR, minus_spec in HeM.
  destruct HeM as [_ Hn]. apply Hn. left. reflexivity.
Qed.

(** Kind [redundant_influence]: an evidence ancestor in no minimal justification is always a
    violation (of an active claim). *)
Theorem violation_redundant_influence : f E = true -> forall e, A e -> ~ inU e -> violation e.
Proof.
  intros Hact e He Hn. split; [exact He|].
  destruct (exists_minimal E (incl_refl E) Hact) as [S [HS _]].
  destruct (f (minus E [e])) eqn:Hf; [reflexivity|exfalso].
  apply (survives S e (proj1 HS)); [|exact (proj1 (proj2 HS))|exact Hf].
  intros HeS. apply Hn. exists S. auto.
Qed.

End Ancestors.

(** Theorem 1 (the justification boundary): for an active claim c, influence revision (over
    the union U of its minimal justifications) agrees with exact revision on every audit of
    evidence iff c has a unique minimal justification. *)
Theorem boundary : f E = true -> (agree inU <-> unique).
Proof.
  intros Hact.
  assert (Hev : forall i, inU i -> In i E).
  { intros i [M [HM Hi]]. exact (minimal_in_E M i HM Hi). }
  rewrite (refined inU (fun i H => H) Hev Hact). split.
  - intros [S [HS [Hall _]]]. exists S. auto.
  - intros [S [HS Hall]]. exists S. split; [exact HS|split; [exact Hall|]].
    intros x. split.
    + intros [M [HM Hx]]. apply (Hall M HM). exact Hx.
    + intros Hx. exists S. auto.
Qed.

End Boundary.
