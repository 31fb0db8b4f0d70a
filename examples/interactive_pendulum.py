"""A triple pendulum you steer from the browser while it runs in real time: a slider sets
the rest angle of a torsion spring at its top pin, and a menu pushes it or stops it.

Open the address it prints. The simulation runs in the Visualizer's REAL_TIME mode, so
one simulated second takes one second; a periodic event handler takes what the page sent
from an InputSilo every 50 ms and changes the State it is handed (the spring's rest angle,
a per-State parameter; the speeds), as in Simbody's interactive examples. With nobody at
the page it simply swings for SECONDS seconds and stops."""

import math
import os

import kinetree as kt

SECONDS = float(os.environ.get("KINETREE_EXAMPLE_SECONDS", "3"))
SLIDER, MENU = 1, 2
PUSH, STOP = 1, 2

system = kt.MultibodySystem()
matter = kt.SimbodyMatterSubsystem(system)
forces = kt.GeneralForceSubsystem(system)
kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
com = [0, -0.25, 0]
link = kt.Body.Rigid(kt.MassProperties(1.0, com,
                                       kt.Inertia(0.005).shift_from_mass_center(com, 1.0)))
link.add_decoration(kt.Transform([0, -0.25, 0]), kt.DecorativeCylinder(0.02, 0.25))
link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.05).set_color("red"))
top = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
middle = kt.MobilizedBody.Pin(top, kt.Transform([0, -0.5, 0]), link, kt.Transform())
kt.MobilizedBody.Pin(middle, kt.Transform([0, -0.5, 0]), link, kt.Transform())
spring = kt.Force.MobilityLinearSpring(forces, top, 0, 40.0, 0.0)

viz = kt.Visualizer(system, port=int(os.environ.get("KINETREE_VIEWER_PORT", "0")))
viz.set_mode(kt.Visualizer.Mode.REAL_TIME)
viz.add_slider("rest angle (deg)", SLIDER, -90, 90, 0)
viz.add_menu("Pendulum", MENU, [("push", PUSH), ("stop", STOP)])
silo = kt.Visualizer.InputSilo()
viz.add_input_listener(silo)


class UserInput(kt.PeriodicEventHandler):
    """Every 50 ms of simulated time, apply what the page sent since the last time."""

    def handle_event(self, state, accuracy):
        while (move := silo.take_slider_move()) is not None:
            spring.set_q_zero(state, math.radians(move[1]))
        while (pick := silo.take_menu_pick()) is not None:
            u = state.upd_u()
            if pick[1] == PUSH:
                u[0] += 3.0
            else:
                u[:] = 0.0
        return False


system.add_event_handler(UserInput(0.05))
system.add_event_reporter(kt.Visualizer.Reporter(viz))
state = system.realize_topology()
top.set_one_q(state, 0, 0.8)
run = kt.simulate(system, state, SECONDS, accuracy=1e-4, progress=False)
viz.shutdown()
print(f"swung for {run.t[-1]:.1f} s; {len(viz.get_frame_log())} frames drawn")
