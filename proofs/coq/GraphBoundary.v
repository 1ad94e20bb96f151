(** * Theorem 1 for memory graphs: the graph's support function is a Boolean [f] for [Boundary].

    [Graph.v] gives a memory graph's active state as the least fixpoint [active] (a Prop);
    [Boundary.v] proves Theorem 1 for any monotone Boolean [f : list nat -> bool]. This file
    links the two by a term: for a graph with decidable evidence [ev] and justifications
    [js], [support_b c X] computes the least fixpoint by saturation (fire every justification
    whose antecedents are all active, remove it, repeat; at most [length js] rounds), and

    - [support_b_spec]: [support_b c X = true] iff [supports X c] (the least fixpoint);
    - [graph_support_monotone]: it is monotone, so [Boundary]'s hypothesis [f_mono] holds;
    - [graph_boundary]: Theorem 1 for the graph's claim c ([Boundary.boundary] applied to
      [support_b c]): influence over U agrees with exact revision on every audit of the
      evidence E iff c has a unique minimal justification;
    - [graph_influence_safe]: the corollary over the graph's own ancestors: c is
      influence-safe (influence revision, which retires c when the audit meets c's evidence
      ancestors, agrees with exact revision on every audit) iff c has a unique minimal
      justification S and its evidence ancestors are exactly S. Its proof uses
      [Graph.minimal_justifications_are_ancestors] (the ancestors contain U), hence the
      standard library's [classic]; everything else here is constructive. *)

Require Import List Arith Bool Lia.
Require Import JTMS.Boundary JTMS.Graph.
Import ListNotations.

Lemma partition_spec : forall (A : Type) (g : A -> bool) l l1 l2, partition g l = (l1, l2) ->
  (forall x, In x l1 -> g x = true) /\ (forall x, In x l2 -> g x = false).
Proof.
  intros A g l. induction l as [|a l IH]; simpl; intros l1 l2 H.
  - inversion H; subst. split; intros x [].
  - destruct (partition g l) as [m1 m2] eqn:Hp. destruct (IH m1 m2 eq_refl) as [H1 H2].
    destruct (g a) eqn:Ha; inversion H; subst; split; intros x Hx;
      try (destruct Hx as [Hx|Hx]; [subst; exact Ha|]); auto.
Qed.

Section GraphBoundary.

Variable ev : nat -> bool.
Variable js : list (nat * list nat).

Definition is_evidence (n : nat) : Prop := ev n = true.

Definition memb (n : nat) (R : list nat) : bool := if in_dec Nat.eq_dec n R then true else false.

Lemma memb_spec : forall n R, memb n R = true <-> In n R.
Proof.
  intros n R. unfold memb. destruct (in_dec Nat.eq_dec n R); split; intros H;
    auto; try discriminate; contradiction.
Qed.

(** A justification fires on R when all its antecedents are in R. *)
Definition fires (R : list nat) (j : nat * list nat) : bool := forallb (fun a => memb a R) (snd j).

Fixpoint saturate (fuel : nat) (R : list nat) (pending : list (nat * list nat)) : list nat :=
  match fuel with
  | 0 => R
  | S k =>
      match partition (fires R) pending with
      | ([], _) => R
      | (now, rest) => saturate k (map fst now ++ R) rest
      end
  end.

Definition closure (X : list nat) : list nat := saturate (length js) (filter ev X) js.

(** The support function of claim c: c is in the saturated closure of the evidence in X. *)
Definition support_b (c : nat) (X : list nat) : bool := memb c (closure X).

Notation act X := (active is_evidence js (fun x => In x X)).

Lemma saturate_grows : forall k R pending n, In n R -> In n (saturate k R pending).
Proof.
  induction k as [|k IH]; intros R pending n Hn; simpl; [exact Hn|].
  destruct (partition (fires R) pending) as [now rest].
  destruct now as [|j now]; [exact Hn|]. apply IH. apply in_or_app. right. exact Hn.
Qed.

Lemma saturate_sound : forall X k R pending,
  (forall n, In n R -> act X n) -> (forall j, In j pending -> In j js) ->
  forall n, In n (saturate k R pending) -> act X n.
Proof.
  intros X. induction k as [|k IH]; intros R pending HR Hp n Hn; simpl in Hn; [exact (HR n Hn)|].
  destruct (partition (fires R) pending) as [now rest] eqn:Hpart.
  destruct (partition_spec _ _ _ _ _ Hpart) as [Hnow _].
  assert (Hin := elements_in_partition _ _ Hpart).
  destruct now as [|j0 now0]; [exact (HR n Hn)|].
  apply (IH (map fst (j0 :: now0) ++ R) rest); [| |exact Hn].
  - intros m Hm. apply in_app_or in Hm. destruct Hm as [Hm|Hm]; [|exact (HR m Hm)].
    apply in_map_iff in Hm. destruct Hm as [[c ants] [Hc Hj]]. simpl in Hc. subst m.
    assert (Hf := Hnow _ Hj). unfold fires in Hf. rewrite forallb_forall in Hf.
    apply (active_claim is_evidence js _ c ants).
    + apply Hp. apply Hin. left. exact Hj.
    + intros a Ha. apply HR. apply memb_spec. exact (Hf a Ha).
  - intros j Hj. apply Hp. apply Hin. right. exact Hj.
Qed.

Lemma saturate_closed : forall k R pending, length pending <= k ->
  (forall j, In j js -> In j pending \/ In (fst j) R) ->
  forall j, In j js -> fires (saturate k R pending) j = true -> In (fst j) (saturate k R pending).
Proof.
  induction k as [|k IH]; intros R pending Hlen Hinv j Hj Hf.
  - destruct pending; [|simpl in Hlen; inversion Hlen]. simpl in *.
    destruct (Hinv j Hj) as [[]|H]. exact H.
  - simpl in *. destruct (partition (fires R) pending) as [now rest] eqn:Hpart.
    destruct (partition_spec _ _ _ _ _ Hpart) as [_ Hrest].
    assert (Hin := elements_in_partition _ _ Hpart).
    assert (Hl := partition_length _ _ Hpart).
    destruct now as [|j0 now0].
    + destruct (Hinv j Hj) as [Hp|H]; [|exact H]. exfalso.
      apply Hin in Hp. destruct Hp as [[]|Hp]. rewrite (Hrest j Hp) in Hf. discriminate.
    + apply IH; [simpl in Hl; lia| |exact Hj|exact Hf].
      intros j' Hj'. destruct (Hinv j' Hj') as [Hp|H].
      * apply Hin in Hp. destruct Hp as [Hp|Hp]; [right|left; exact Hp].
        apply in_or_app. left. apply in_map. exact Hp.
      * right. apply in_or_app. right. exact H.
Qed.

(** Everything active is in the closure: the closure is closed under both rules, and the
    active state is the least such set ([Graph.active_least]). *)
Lemma closure_complete : forall X n, act X n -> In n (closure X).
Proof.
  intros X. apply active_least.
  - intros e He HX. apply saturate_grows. apply filter_In. split; [exact HX|exact He].
  - intros c ants Hj Hants. unfold closure.
    apply (saturate_closed (length js) (filter ev X) js (le_n _)
             (fun j Hj => or_introl Hj) (c, ants) Hj).
    unfold fires. apply forallb_forall. intros a Ha. apply memb_spec. exact (Hants a Ha).
Qed.

Lemma closure_sound : forall X n, In n (closure X) -> act X n.
Proof.
  intros X. apply saturate_sound; [|intros j Hj; exact Hj].
  intros n Hn. apply filter_In in Hn. destruct Hn as [HX He].
  apply active_evidence; [exact He|exact HX].
Qed.

(** The Boolean support function is the least-fixpoint support function of [Graph.v]. *)
Theorem support_b_spec : forall c X, support_b c X = true <-> supports is_evidence js X c.
Proof.
  intros c X. unfold support_b, supports. rewrite memb_spec. split.
  - apply closure_sound.
  - apply closure_complete.
Qed.

Theorem graph_support_monotone : forall c X Y, incl X Y -> support_b c X = true -> support_b c Y = true.
Proof.
  intros c X Y HXY HX. apply support_b_spec. apply support_b_spec in HX.
  exact (support_monotone is_evidence js X Y c HXY HX).
Qed.

(** Theorem 1 for the claim c of the graph: [Boundary.boundary] with f := [support_b c]. *)
Theorem graph_boundary : forall E c, support_b c E = true ->
  (agree E (support_b c) (inU E (support_b c)) <-> unique E (support_b c)).
Proof. intros E c. apply boundary. apply graph_support_monotone. Qed.

(** The evidence ancestors of c in E: what influence revision follows back from c. *)
Definition evidence_ancestors (E : list nat) (c : nat) (e : nat) : Prop := In e E /\ ancestor js e c.

(** A minimal justification in [Boundary]'s sense (of the Boolean f) is one in [Graph]'s. *)
Lemma minimal_is_minimal_justification : forall E c M, (forall e, In e E -> ev e = true) ->
  minimal E (support_b c) M -> minimal_justification is_evidence js c M.
Proof.
  intros E c M HE [HME [HfM Hrem]]. split; [intros x Hx; exact (HE x (HME x Hx))|split].
  - apply support_b_spec. exact HfM.
  - intros i Hi Hs. apply support_b_spec in Hs. rewrite (Hrem i Hi) in Hs. discriminate.
Qed.

(** The corollary over graphs: an active claim c (not itself evidence) over evidence E is
    influence-safe, influence following c's evidence ancestors, iff c has a unique minimal
    justification S and those ancestors are exactly S. *)
Theorem graph_influence_safe : forall E c, (forall e, In e E -> ev e = true) -> ev c = false ->
  support_b c E = true ->
  (agree E (support_b c) (evidence_ancestors E c) <-> unique_is E (support_b c) (evidence_ancestors E c)).
Proof.
  intros E c HE Hc Hact. apply refined; [apply graph_support_monotone| | |exact Hact].
  - intros i [M [HM Hi]]. split; [exact (minimal_in_E E (support_b c) M i HM Hi)|].
    apply (minimal_justifications_are_ancestors is_evidence js c M i).
    + unfold is_evidence. rewrite Hc. discriminate.
    + exact (minimal_is_minimal_justification E c M HE HM).
    + exact Hi.
  - intros i [Hi _]. exact Hi.
Qed.

End GraphBoundary.

(** * Audits of claims and mixed audits (DESIGN.md section 2, "Audits of claims").

    An audit R is any list of nodes, evidence or claims: [alive R] is the active state with
    the nodes of R forced inactive, the least fixpoint as in [Graph.active]. Exact revision
    of R retires the active claim c iff [~ alive R c]; influence revision retires it iff R
    meets c or one of c's ancestors (reachability along antecedent -> claim edges). For
    audits drawn from any list of nodes D (the evidence, the claims, or both):

    - [graph_audit_safe]: an active c is influence-safe for the audits drawn from D iff
      exact revision of {x} retires c for every x in D that is c or an ancestor of c (the
      checker's criterion, with one-item witness audits {x}; for D = the evidence it is
      [Boundary.checker_criterion] again);
    - [graph_audit_safe_union]: safe for the audits drawn from D1 ++ D2 iff safe for those
      drawn from D1 and for those drawn from D2 (mixed audits = evidence and claims).

    [graph_audit_safe] argues by contradiction once ([classic], through [NNPP]). *)

Require Import Classical_Prop.

Section Audits.

Variable ev : nat -> bool.
Variable js : list (nat * list nat).

Inductive alive (R : list nat) : nat -> Prop :=
| alive_evidence : forall e, ev e = true -> ~ In e R -> alive R e
| alive_claim : forall c ants, In (c, ants) js -> ~ In c R ->
    (forall a, In a ants -> alive R a) -> alive R c.

Definition exact_retires (R : list nat) (c : nat) : Prop := ~ alive R c.

Definition influence_retires (R : list nat) (c : nat) : Prop :=
  exists x, In x R /\ (x = c \/ ancestor js x c).

(** c is influence-safe for the audits drawn from D: both rules agree on c for each of them. *)
Definition audit_safe (D : list nat) (c : nat) : Prop :=
  forall R, incl R D -> (exact_retires R c <-> influence_retires R c).

(** Auditing more retires more: exact revision is monotone in the audit. *)
Lemma alive_antimono : forall R R', incl R R' -> forall n, alive R' n -> alive R n.
Proof.
  intros R R' HRR' n H. induction H as [e He HnR|c ants Hin HnR Hants IH].
  - apply alive_evidence; [exact He|]. intros HR. exact (HnR (HRR' e HR)).
  - apply (alive_claim R c ants Hin); [|exact IH]. intros HR. exact (HnR (HRR' c HR)).
Qed.

(** An audit that meets neither n nor an ancestor of n leaves n active. *)
Lemma alive_untouched : forall R n, alive [] n ->
  (forall x, In x R -> x <> n /\ ~ ancestor js x n) -> alive R n.
Proof.
  intros R n H. induction H as [e He _|c ants Hin _ Hants IH]; intros Hfar.
  - apply alive_evidence; [exact He|]. intros HR. destruct (Hfar e HR) as [Hne _]. exact (Hne eq_refl).
  - apply (alive_claim R c ants Hin).
    + intros HR. destruct (Hfar c HR) as [Hne _]. exact (Hne eq_refl).
    + intros a Ha. apply IH; [exact Ha|]. intros x Hx. destruct (Hfar x Hx) as [_ Hnanc]. split.
      * intros Heq. subst x. exact (Hnanc (ancestor_edge js c ants a Hin Ha)).
      * intros Hanc. exact (Hnanc (ancestor_step js c ants x a Hin Ha Hanc)).
Qed.

Theorem graph_audit_safe : forall D c, alive [] c ->
  (audit_safe D c <-> forall x, In x D -> (x = c \/ ancestor js x c) -> exact_retires [x] c).
Proof.
  intros D c Hc. split.
  - intros Hsafe x HxD Hxa. apply (Hsafe [x]).
    + intros y [Hy|[]]. subst y. exact HxD.
    + exists x. split; [left; reflexivity|exact Hxa].
  - intros Hone R HRD. split.
    + intros Hex. apply NNPP. intros Hno. apply Hex. apply alive_untouched; [exact Hc|].
      intros x Hx. split.
      * intros Heq. apply Hno. exists x. split; [exact Hx|left; exact Heq].
      * intros Hanc. apply Hno. exists x. split; [exact Hx|right; exact Hanc].
    + intros [x [Hx Hxa]] Halive. apply (Hone x (HRD x Hx) Hxa).
      apply (alive_antimono [x] R); [|exact Halive].
      intros y [Hy|[]]. subst y. exact Hx.
Qed.

Theorem graph_audit_safe_union : forall D1 D2 c, alive [] c ->
  (audit_safe (D1 ++ D2) c <-> audit_safe D1 c /\ audit_safe D2 c).
Proof.
  intros D1 D2 c Hc.
  destruct (graph_audit_safe (D1 ++ D2) c Hc) as [H12 H12'].
  destruct (graph_audit_safe D1 c Hc) as [H1 H1'].
  destruct (graph_audit_safe D2 c Hc) as [H2 H2']. split.
  - intros Hs. assert (Hall := H12 Hs). split.
    + apply H1'. intros x Hx. apply Hall. apply in_or_app. left. exact Hx.
    + apply H2'. intros x Hx. apply Hall. apply in_or_app. right. exact Hx.
  - intros [Hs1 Hs2]. apply H12'. intros x Hx. apply in_app_or in Hx. destruct Hx as [Hx|Hx].
    + exact (H1 Hs1 x Hx).
    + exact (H2 Hs2 x Hx).
Qed.

End Audits.
