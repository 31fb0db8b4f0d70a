"""Forward dynamics speed against Pinocchio's ``aba``, run side by side in one process.

1. The tree of the Simbody paper's Fig. 3: a base on a slider carrying 11 chains of 20
   bodies on randomly oriented pins (221 bodies). Timed: ``realize(ACCELERATION)`` from a
   freshly set q and u (kinetree) and ``pinocchio.aba`` (which takes q and v directly).
2. Chains of 10, 100, 1000 and 10000 pin-jointed bodies: time per body. Pinocchio runs
   beside kinetree up to 100 bodies only: its ``Data`` for a 1000-joint chain did not fit
   in this machine's 24 GB.

Both libraries are given the same model and their accelerations are compared before
timing. Each figure is the best of nine batches, the batches of all the calls of a table
taken in turn, so that a burst of load from another tenant of a shared machine does not
fall on one size alone.
Run: ``.venv/bin/python bench/forward_dynamics.py`` (needs the ``bench`` extra).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from fig3_model import G, build_kinetree, chain_tree, fig3_tree, random_model
from timing import interleaved_best

import kinetree as kt


def build(parents, kinds, frames, bodies, with_pinocchio=True):
    """The same tree in kinetree (``fig3_model.build_kinetree``) and in Pinocchio. Body
    frames coincide with the joint's outboard frame (X_BM = identity), so Pinocchio's
    joint frame is kinetree's body frame."""
    system = build_kinetree(parents, kinds, frames, bodies)
    if not with_pinocchio:
        return system, None
    model = pin.Model()
    model.gravity.linear = G
    joint_ids = [0]
    for parent, kind, (R, p), (m, com, I_c) in zip(parents, kinds, frames, bodies):
        joint = pin.JointModelRZ() if kind == "pin" else pin.JointModelPX()
        placement = pin.SE3(R, np.asarray(p, dtype=float))
        jid = model.addJoint(joint_ids[parent], joint, placement, f"j{len(joint_ids)}")
        model.appendBodyToJoint(jid, pin.Inertia(m, np.asarray(com), I_c),
                                pin.SE3.Identity())
        joint_ids.append(jid)
    return system, model


def prepare(parents, kinds, seed=0, with_pinocchio=True):
    """(bodies, kinetree call, Pinocchio call or None, max relative |Δu̇|): each call
    computes u̇ from the same q and u, kinetree's as ``realize(ACCELERATION)`` from a
    freshly set q and u."""
    n = len(parents)
    frames, bodies, q, u = random_model(parents, seed)
    system, model = build(parents, kinds, frames, bodies, with_pinocchio)
    state = system.realize_topology()
    tau = np.zeros(n)

    def kinetree_step():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)

    kinetree_step()
    if model is None:
        return n, kinetree_step, None, float("nan")
    data = model.createData()
    a_pin = pin.aba(model, data, q, u, tau)
    err = np.abs(state.get_u_dot() - a_pin).max() / max(1.0, np.abs(a_pin).max())
    return n, kinetree_step, lambda: pin.aba(model, data, q, u, tau), err


def main():
    print("Fig. 3 tree (slider base, 11 chains x 20 pins)")
    print(f"{'bodies':>7} {'kinetree µs':>12} {'pinocchio µs':>13} {'ratio':>7} {'max |Δu̇|':>10}")
    n, kt_step, pin_step, err = prepare(*fig3_tree())
    t_kt, t_pin = interleaved_best([kt_step, pin_step])
    print(f"{n:>7} {t_kt * 1e6:>12.1f} {t_pin * 1e6:>13.1f} {t_kt / t_pin:>7.2f} {err:>10.1e}")

    print("\nPin chains: time per body, and the marginal time per added body (the slope")
    print("between this chain and the previous one, free of the fixed per-call cost)")
    print(f"{'bodies':>7} {'kinetree µs/body':>17} {'marginal µs/body':>17} "
          f"{'pinocchio µs/body':>18} {'ratio':>7} {'max |Δu̇|':>10}")
    chains = [prepare(*chain_tree(n), with_pinocchio=n <= 100) for n in (10, 100, 1000, 10000)]
    calls = [c[1] for c in chains] + [c[2] for c in chains if c[2] is not None]
    times = interleaved_best(calls)
    t_pins = iter(times[len(chains):])
    previous = None
    per_body = []
    for (n, _, pin_step, err), t_kt in zip(chains, times, strict=False):
        t_pin = next(t_pins) if pin_step is not None else float("nan")
        marginal = float("nan") if previous is None else \
            (t_kt - previous[1]) / (n - previous[0])
        previous = (n, t_kt)
        per_body.append(t_kt / n)
        print(f"{n:>7} {t_kt / n * 1e6:>17.3f} {marginal * 1e6:>17.3f} "
              f"{t_pin / n * 1e6:>18.3f} {t_kt / t_pin:>7.2f} {err:>10.1e}")
    spread = max(per_body[1:]) / min(per_body[1:])
    print(f"\nper-body time from 100 to 10000 bodies: largest / smallest = {spread:.2f} "
          f"(target 1.25)")


if __name__ == "__main__":
    main()
