"""Simbody's TestNoseHooverThermostat, ported: a unit-mass harmonic oscillator on a slider
(spring constant 1, starting at -2), held at a bath temperature by a Nosé-Hoover chain,
integrated by Verlet for 150 s and sampled every 0.1 s after the first second: its mean
position and velocity are zero, its mean kinetic energy kT/2 and its mean squared velocity
kT/m (the Boltzmann distribution of one degree of freedom). Simbody runs the 100 K case;
the others are commented out there to lighten its nightly build, as here."""

import numpy as np

import kinetree as kt


class HarmonicOscillator:
    """Simbody's HarmonicOscillator: the slider, its spring and a periodic reporter."""

    class OscillatorReporter(kt.PeriodicEventReporter):
        def __init__(self, oscillator, report_interval):
            super().__init__(report_interval)
            self.oscillator = oscillator
            self.event_count = 0
            self.sum_energy = self.sum_energy_squared = 0.0
            self.sum_velocity = self.sum_abs_velocity = self.sum_velocity_squared = 0.0
            self.sum_position = self.sum_rms_vel_pos = 0.0

        def handle_event(self, state):
            # Equilibrate a bit before collecting data.
            if state.get_time() <= 1:
                return
            self.event_count += 1
            system = self.oscillator.system
            system.realize(state, kt.Stage.DYNAMICS)
            energy = system.calc_kinetic_energy(state)
            self.sum_energy += energy
            self.sum_energy_squared += energy * energy
            position = self.oscillator.get_position(state)
            self.sum_position += position
            velocity = self.oscillator.get_velocity(state)
            self.sum_velocity += velocity
            self.sum_abs_velocity += abs(velocity)
            self.sum_velocity_squared += velocity * velocity
            self.sum_rms_vel_pos += np.sqrt(position * position * velocity * velocity)

    def __init__(self):
        self.system = kt.MultibodySystem()
        self.matter = kt.SimbodyMatterSubsystem(self.system)
        self.forces = kt.GeneralForceSubsystem(self.system)
        self.mass = 1.0
        station = [0.0, 0.0, 0.0]
        # A slider keeps the oscillator's motion to one dimension.
        self.slider = kt.MobilizedBody.Slider(
            self.matter.upd_ground(), kt.Body.Rigid(kt.MassProperties(self.mass, station,
                                                                      kt.Inertia(1))))
        self.slider.set_default_length(-2.0)              # initial position at -2
        # A unit spring constant, to match the example in Frenkel and Smit.
        kt.Force.TwoPointLinearSpring(self.forces, self.matter.Ground(), [0, 0, 0],
                                      self.slider, [0, 0, 0], 1.0, 0.0)
        self.reporter = None

    def simulate(self):
        self.reporter = self.OscillatorReporter(self, 0.1)
        self.system.add_event_reporter(self.reporter)
        state = self.system.realize_topology()
        integ = kt.VerletIntegrator(self.system)
        ts = kt.TimeStepper(self.system, integ)
        ts.initialize(state)
        ts.step_to(150.0)

    def assert_temperature(self, temperature):
        r = self.reporter
        assert r.event_count > 100                  # some data were collected
        degrees_of_freedom = 1
        # Mean position and mean velocity are zero.
        assert abs(0.0 - r.sum_position / r.event_count) < 0.2
        assert abs(0.0 - r.sum_velocity / r.event_count) < 0.2
        # kT/2 per degree of freedom.
        measured_mean_energy = r.sum_energy / r.event_count
        expected_mean_energy = degrees_of_freedom * 0.5 * kt.BOLTZMANN_CONSTANT_MD * temperature
        assert abs(1.0 - measured_mean_energy / expected_mean_energy) < 0.2
        # The Boltzmann distribution: the mean squared velocity is dof kT / mass.
        expected_v2 = degrees_of_freedom * kt.BOLTZMANN_CONSTANT_MD * temperature / self.mass
        measured_v2 = r.sum_velocity_squared / r.event_count
        assert abs(1.0 - measured_v2 / expected_v2) < 0.2

    def get_position(self, state):
        return self.slider.get_length(state)

    def get_velocity(self, state):
        return self.slider.get_rate(state)


def test_oscillator_temperature():
    """testOscillatorTemperature(100): the default chain length."""
    temperature = 100.0
    oscillator = HarmonicOscillator()
    kt.Force.Thermostat(oscillator.forces, oscillator.matter, kt.BOLTZMANN_CONSTANT_MD,
                        temperature, 0.1)
    oscillator.simulate()
    oscillator.assert_temperature(temperature)
