(** * Theorem 2 for memory graphs: the boundary of Datalog's Counting.

    Counting (the Datalog maintenance algorithm) retires, after an audit R, every claim none
    of whose justifications has all its antecedents still kept, repeatedly, starting from the
    active state before the audit less R: what it keeps is the greatest supported set below
    [alive [] \ R]. Here that greatest set is [kept R]: a node is kept iff some supported set
    contains it ([supported R K]: every member of K was active before the audit, is not
    audited, and is evidence or has a justification whose antecedents all lie in K). Exact
    revision keeps [alive R] ([GraphBoundary.alive], the least fixpoint).

    - [alive_kept]: counting never retires more than exact revision ([alive R n -> kept R n]);
    - [graph_counting_safe]: an active claim c is counting-safe for the audits drawn from D
      (counting and exact revision retire c together on every such audit) iff there is no
      witness (R, L): an audit R drawn from D and a set L containing c whose members were
      active, are not audited, are retired by exact revision and each keep a justification
      with every antecedent in L or still alive;
    - [witness_loop]: every member of a witness L has such a justification with an
      antecedent in L (so following them from c stays in L: a support loop);
    - [counting_safe_acyclic]: the corollary: if neither c nor any ancestor of c lies on a
      cycle ([ancestor x x]), c is counting-safe for the audits drawn from any D (following
      the loop down from c would visit more distinct claims than the graph has).

    [graph_counting_safe], [witness_loop] and [counting_safe_acyclic] argue by contradiction ([classic], through
    [NNPP] and [classic] itself); [alive_kept] is constructive. *)

Require Import List Arith Classical_Prop.
Require Import JTMS.Graph JTMS.GraphBoundary.
Import ListNotations.

Section Counting.

Variable ev : nat -> bool.
Variable js : list (nat * list nat).

Notation alive := (alive ev js).

(** K is supported under the audit R: a set Counting cannot retire anything from. *)
Definition supported (R : list nat) (K : nat -> Prop) : Prop :=
  forall n, K n -> alive [] n /\ ~ In n R /\
    (ev n = true \/ exists ants, In (n, ants) js /\ forall a, In a ants -> K a).

(** What Counting keeps after the audit R: the union of the supported sets (the greatest). *)
Definition kept (R : list nat) (n : nat) : Prop := exists K, supported R K /\ K n.

Definition counting_retires (R : list nat) (c : nat) : Prop := ~ kept R c.

(** c is counting-safe for the audits drawn from D: Counting and exact revision agree on c. *)
Definition counting_safe (D : list nat) (c : nat) : Prop :=
  forall R, incl R D -> (counting_retires R c <-> exact_retires ev js R c).

(** A witness (R, L): the members of L were active, are not audited, are retired by exact
    revision, and each keep a justification whose antecedents lie in L or are still alive. *)
Definition witness (R : list nat) (L : nat -> Prop) : Prop :=
  forall n, L n -> alive [] n /\ ~ In n R /\ ~ alive R n /\
    exists ants, In (n, ants) js /\ forall a, In a ants -> L a \/ alive R a.

Lemma alive_supported : forall R, supported R (alive R).
Proof.
  intros R n H. split; [|split].
  - apply (alive_antimono ev js [] R); [intros x []|exact H].
  - destruct H as [e _ HnR|c ants _ HnR _]; exact HnR.
  - destruct H as [e He _|c ants Hin _ Hants]; [left; exact He|right].
    exists ants. split; [exact Hin|exact Hants].
Qed.

(** Counting keeps everything exact revision keeps: counting ⊆ exact as retired sets. *)
Theorem alive_kept : forall R n, alive R n -> kept R n.
Proof. intros R n H. exists (alive R). split; [apply alive_supported|exact H]. Qed.

(** A witness and what survives exactly form a supported set: Counting keeps L. *)
Lemma witness_kept : forall R L n, witness R L -> L n -> kept R n.
Proof.
  intros R L n HW Hn. exists (fun x => L x \/ alive R x). split; [|left; exact Hn].
  intros x [Hx|Hx].
  - destruct (HW x Hx) as [H0 [HnR [_ [ants [Hin Hants]]]]].
    split; [exact H0|split; [exact HnR|right]]. exists ants. split; [exact Hin|exact Hants].
  - destruct (alive_supported R x Hx) as [H0 [HnR [He|[ants [Hin Hants]]]]].
    + split; [exact H0|split; [exact HnR|left; exact He]].
    + split; [exact H0|split; [exact HnR|right]].
      exists ants. split; [exact Hin|]. intros a Ha. right. exact (Hants a Ha).
Qed.

(** What Counting keeps and exact revision retires is a witness. *)
Lemma kept_not_alive_witness : forall R, witness R (fun n => kept R n /\ ~ alive R n).
Proof.
  intros R n [[K [HK Hn]] Hna]. destruct (HK n Hn) as [H0 [HnR [He|[ants [Hin Hants]]]]].
  - exfalso. apply Hna. apply alive_evidence; [exact He|exact HnR].
  - split; [exact H0|split; [exact HnR|split; [exact Hna|]]].
    exists ants. split; [exact Hin|]. intros a Ha.
    destruct (classic (alive R a)) as [Hl|Hl]; [right; exact Hl|left].
    split; [exists K; split; [exact HK|exact (Hants a Ha)]|exact Hl].
Qed.

(** Theorem 2: counting-safe for the audits drawn from D iff no witness. *)
Theorem graph_counting_safe : forall D c, alive [] c ->
  (counting_safe D c <-> ~ exists R L, incl R D /\ witness R L /\ L c).
Proof.
  intros D c _. split.
  - intros Hsafe [R [L [HRD [HW Hc]]]].
    destruct (HW c Hc) as [_ [_ [Hna _]]].
    apply (proj2 (Hsafe R HRD) Hna). exact (witness_kept R L c HW Hc).
  - intros Hno R HRD. split.
    + intros Hret Hal. exact (Hret (alive_kept R c Hal)).
    + intros Hex Hkept. apply Hno. exists R, (fun n => kept R n /\ ~ alive R n).
      split; [exact HRD|split; [apply kept_not_alive_witness|split; [exact Hkept|exact Hex]]].
Qed.

(** The loop: every member of a witness keeps a justification with an antecedent in L. *)
Theorem witness_loop : forall R L n, witness R L -> L n ->
  exists ants, In (n, ants) js /\ (forall a, In a ants -> L a \/ alive R a) /\
    exists a, In a ants /\ L a.
Proof.
  intros R L n HW Hn. destruct (HW n Hn) as [_ [HnR [Hna [ants [Hin Hants]]]]].
  exists ants. split; [exact Hin|split; [exact Hants|]].
  apply NNPP. intros Hnone. apply Hna. apply (alive_claim ev js R n ants Hin HnR).
  intros a Ha. destruct (Hants a Ha) as [HL|Hl]; [|exact Hl].
  exfalso. apply Hnone. exists a. split; [exact Ha|exact HL].
Qed.

Lemma ancestor_trans : forall a b n, ancestor js a b -> ancestor js b n -> ancestor js a n.
Proof.
  intros a b n Hab Hbn. induction Hbn as [n ants b Hin Hb|n ants b b' Hin Hb' _ IH].
  - exact (ancestor_step js n ants a b Hin Hb Hab).
  - exact (ancestor_step js n ants a b' Hin Hb' (IH Hab)).
Qed.

(** Following the loop down from a member n of a witness: for every k, k distinct claims that
    are ancestors of n, when no ancestor of c (nor c) lies on a cycle. *)
Lemma witness_descent : forall R L c, witness R L ->
  (forall x, (x = c \/ ancestor js x c) -> ~ ancestor js x x) ->
  forall k n, L n -> (n = c \/ ancestor js n c) ->
  exists l, length l = k /\ NoDup l /\
    forall x, In x l -> ancestor js x n /\ In x (map fst js).
Proof.
  intros R L c HW Hacyc k. induction k as [|k IH]; intros n Hn Hnc.
  - exists []. split; [reflexivity|split; [constructor|intros x []]].
  - destruct (witness_loop R L n HW Hn) as [ants [Hin [_ [a [Ha HLa]]]]].
    assert (Han : ancestor js a n) by exact (ancestor_edge js n ants a Hin Ha).
    assert (Hac : ancestor js a c).
    { destruct Hnc as [Heq|Hnc]; [subst n; exact Han|exact (ancestor_trans a n c Han Hnc)]. }
    destruct (IH a HLa (or_intror Hac)) as [l [Hlen [Hnd Hl]]].
    exists (a :: l). split; [simpl; rewrite Hlen; reflexivity|split].
    + constructor; [|exact Hnd]. intros Hal. destruct (Hl a Hal) as [Haa _].
      exact (Hacyc a (or_intror Hac) Haa).
    + intros x [Hx|Hx].
      * subst x. split; [exact Han|].
        destruct (HW a HLa) as [_ [_ [_ [ants' [Hin' _]]]]].
        apply in_map_iff. exists (a, ants'). split; [reflexivity|exact Hin'].
      * destruct (Hl x Hx) as [Hxa Hxj]. split; [exact (ancestor_trans x a n Hxa Han)|exact Hxj].
Qed.

(** Corollary: a claim none of whose ancestors (nor itself) lies on a cycle of the graph is
    counting-safe for the audits drawn from any D. *)
Theorem counting_safe_acyclic : forall D c, alive [] c ->
  (forall x, (x = c \/ ancestor js x c) -> ~ ancestor js x x) -> counting_safe D c.
Proof.
  intros D c Hc Hacyc. apply (graph_counting_safe D c Hc). intros [R [L [_ [HW HLc]]]].
  destruct (witness_descent R L c HW Hacyc (S (length (map fst js))) c HLc (or_introl eq_refl))
    as [l [Hlen [Hnd Hl]]].
  assert (Hle := NoDup_incl_length Hnd (fun x Hx => proj2 (Hl x Hx))).
  rewrite Hlen in Hle. exact (Nat.nle_succ_diag_l _ Hle).
Qed.

End Counting.
