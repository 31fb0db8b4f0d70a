"""The forward-dynamics pipeline in one compiled call (MuJoCo's ``mj_forward``), for a
tree whose only applied force is gravity: the sweeps the staged realization's kernels run,
in the same order, on named views of the flat buffers unpacked once, so the results are
bit-identical without a Python round trip (or an unpacking) per stage.

  POSITION      position_sweep (kernels/position.py)
  VELOCITY      velocity_sweep (and q̇ = N u)
  DYNAMICS      inertia_sweep; forces zeroed; gravity added
  ACCELERATION  acceleration_sweep; q̈ = N u̇ + Ṅ u (qdotdot_sweep)

Fusing the sweeps was tried twice and is slower on long chains: three passes doing
several stages' per-body steps at once took 0.31 against 0.25 µs per body at 10000 bodies
(equal at 1000), and position and velocity in one pass 0.33 against 0.29. Once a chain
outgrows the last-level cache, a loop that streams many arrays at once loses more to
memory than the extra passes cost; so does one record per body holding every field.
``SimbodyMatterSubsystem._forward_call`` binds it to a State; ``MultibodySystem.realize``
decides when it applies.
"""

from kinetree.multibody.kernels.aba import acceleration_sweep, inertia_sweep
from kinetree.multibody.kernels.gravity import add_gravity_forces
from kinetree.multibody.kernels.n_matrix import qdotdot_sweep
from kinetree.multibody.kernels.position import position_sweep
from kinetree.multibody.kernels.velocity import velocity_sweep
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@kernel
def realize_forward(tree_i, tree_f, q, u, buf, status, qdot, gravity, body_forces,
                    mobility_forces, udot, qdotdot_work, qdotdot):
    """Through ACCELERATION from q and u with gravity g (m/s², in G); stops after the
    inertias (status[0] ≠ 0) if an articulated inertia is singular."""
    tree = unpack_tree(tree_i, tree_f)
    cache = unpack_cache(buf, status)
    position_sweep(tree, cache, q)
    velocity_sweep(tree, cache, q, u, qdot)
    inertia_sweep(tree, cache)
    if status[0] != 0:
        return
    for b in range(body_forces.shape[0]):
        for i in range(6):
            body_forces[b, i] = 0.0
    for i in range(mobility_forces.shape[0]):
        mobility_forces[i] = 0.0
    if gravity[0] != 0.0 or gravity[1] != 0.0 or gravity[2] != 0.0:
        add_gravity_forces(tree.mass, cache.com_G, gravity, body_forces)
    acceleration_sweep(tree, cache, True, mobility_forces, body_forces, udot)
    qdotdot_sweep(tree, q, u, udot, qdotdot_work, qdotdot)
