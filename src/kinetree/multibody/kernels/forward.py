"""The forward-dynamics pipeline in one compiled call (MuJoCo's ``mj_forward``), for a
tree whose only applied force is gravity: the same kernels the staged realization runs,
in the same order, so the results are identical, without a Python round trip per stage.

  POSITION      calc_position_kinematics
  VELOCITY      calc_velocity_kinematics (and q̇ = N u)
  DYNAMICS      calc_articulated_body_inertias; forces zeroed; gravity added
  ACCELERATION  calc_tree_accelerations; q̈ = N u̇ + Ṅ u

``SimbodyMatterSubsystem._realize_forward`` calls it; ``MultibodySystem.realize`` decides
when it applies.
"""

from kinetree.multibody.kernels.aba import (
    calc_articulated_body_inertias,
    calc_tree_accelerations,
)
from kinetree.multibody.kernels.gravity import add_gravity_forces
from kinetree.multibody.kernels.n_matrix import calc_qdotdot
from kinetree.multibody.kernels.position import calc_position_kinematics
from kinetree.multibody.kernels.velocity import calc_velocity_kinematics
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree


@kernel
def realize_forward(tree_i, tree_f, q, u, buf, status, qdot, gravity, body_forces,
                    mobility_forces, udot, qdotdot_work, qdotdot):
    """Through ACCELERATION from q and u; stops after the inertias (status[0] ≠ 0) if an
    articulated inertia is singular."""
    calc_position_kinematics(tree_i, tree_f, q, buf, status)
    calc_velocity_kinematics(tree_i, tree_f, q, u, buf, status, qdot)
    calc_articulated_body_inertias(tree_i, tree_f, buf, status)
    if status[0] != 0:
        return
    for b in range(body_forces.shape[0]):
        for i in range(6):
            body_forces[b, i] = 0.0
    for i in range(mobility_forces.shape[0]):
        mobility_forces[i] = 0.0
    if gravity[0] != 0.0 or gravity[1] != 0.0 or gravity[2] != 0.0:
        tree = unpack_tree(tree_i, tree_f)
        cache = unpack_cache(buf, status)
        add_gravity_forces(tree.mass, cache.com_G, gravity, body_forces)
    calc_tree_accelerations(tree_i, tree_f, buf, status, True, mobility_forces, body_forces,
                            udot)
    calc_qdotdot(tree_i, tree_f, q, u, udot, qdotdot_work, qdotdot)
