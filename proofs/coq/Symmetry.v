(** * Soundness of lex-leader symmetry breaking (proofs/symmetry.py, proofs/z3_bounded.py).

    Tables t (of any type T) are ranked by a natural number [rank t]: for truth tables read
    as bit strings with index 0 most significant, [rank] is their binary value and rank
    order is the lexicographic order ([lex_iff_rank]). A list of permutations acts on tables.
    For a property Q invariant under every listed permutation (for the bounded proofs: "t
    is a monotone counterexample to the statement"), adding the lex-leader constraints
    rank t <= rank (p t) for every listed p keeps satisfiability ([lex_leader_sound]): the
    rank-least table reachable from a counterexample is a counterexample that satisfies
    them all. So UNSAT with the constraints still proves the statement for every table.
    Constructive: no axioms. *)

Require Import List Arith Lia Bool.
Import ListNotations.

Section LexLeader.

Variables T P : Type.
Variable act : P -> T -> T.
Variable perms : list P.
Variable rank : T -> nat.
Variable Q : T -> Prop.
Hypothesis Q_invariant : forall p t, In p perms -> Q t -> Q (act p t).

Definition lex_leader (t : T) : Prop := forall p, In p perms -> rank t <= rank (act p t).

(** The orbit of t: the tables reachable from t by the listed permutations. *)
Inductive orbit (t : T) : T -> Prop :=
| orbit_refl : orbit t t
| orbit_step : forall p u, In p perms -> orbit t u -> orbit t (act p u).

Lemma forallb_false : forall (A : Type) (g : A -> bool) l,
  forallb g l = false -> exists x, In x l /\ g x = false.
Proof.
  intros A g l. induction l as [|x l IH]; simpl; [discriminate|].
  destruct (g x) eqn:Hg; simpl; intros H.
  - destruct (IH H) as [y [Hy Hgy]]. exists y. auto.
  - exists x. auto.
Qed.

Theorem lex_leader_sound : forall t, Q t ->
  exists u, orbit t u /\ Q u /\ lex_leader u.
Proof.
  intros t Ht.
  assert (forall k u, rank u = k -> orbit t u -> Q u -> exists w, orbit t w /\ Q w /\ lex_leader w)
    as Hind.
  { intros k. induction k as [k IH] using lt_wf_ind. intros u Hk Hu HQ.
    destruct (forallb (fun p => Nat.leb (rank u) (rank (act p u))) perms) eqn:Hb.
    - exists u. split; [exact Hu|split; [exact HQ|]]. intros p Hp.
      rewrite forallb_forall in Hb. apply Nat.leb_le, Hb, Hp.
    - destruct (forallb_false _ _ _ Hb) as [p [Hp Hlt]]. apply Nat.leb_gt in Hlt.
      refine (IH (rank (act p u)) _ (act p u) eq_refl _ _);
        [lia|apply orbit_step; assumption|apply Q_invariant; assumption]. }
  exact (Hind (rank t) t eq_refl (orbit_refl t) Ht).
Qed.

End LexLeader.

(** Truth tables as bit strings, index 0 first (most significant). *)
Fixpoint rank (l : list bool) : nat :=
  match l with
  | [] => 0
  | b :: rest => (if b then 2 ^ length rest else 0) + rank rest
  end.

(** Lexicographic order with false < true, first position most significant. *)
Fixpoint lexle (l1 l2 : list bool) : bool :=
  match l1, l2 with
  | b1 :: r1, b2 :: r2 => if Bool.eqb b1 b2 then lexle r1 r2 else negb b1
  | _, _ => true
  end.

Lemma rank_bound : forall l, rank l < 2 ^ length l.
Proof.
  induction l as [|b l IH]; simpl; [lia|]. destruct b; lia.
Qed.

Theorem lex_iff_rank : forall l1 l2, length l1 = length l2 ->
  (lexle l1 l2 = true <-> rank l1 <= rank l2).
Proof.
  induction l1 as [|b1 r1 IH]; intros [|b2 r2] Hlen; simpl in *; try discriminate; [lia|].
  injection Hlen as Hlen. rewrite <- Hlen.
  assert (B1 := rank_bound r1). assert (B2 := rank_bound r2). rewrite <- Hlen in B2.
  destruct b1, b2; simpl; rewrite ?(IH r2 Hlen); split; intros H; try lia; try discriminate.
Qed.
