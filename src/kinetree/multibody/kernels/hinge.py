"""Dispatch on the mobilizer type code: the one place the tree sweeps meet the
mobilizers. Each function forwards to the module of that type (mobilizers/<type>.py);
the commonest type is tested first. For the custom type (Custom and FunctionBased) the
Python pre-pass has already written X_FM, H_F and (dH/dt) u; see custom_hinges.py."""

import numba

from kinetree.multibody.mobilizers import (
    ball,
    bend_stretch,
    bushing,
    custom,
    cylinder,
    ellipsoid,
    free,
    free_line,
    gimbal,
    line_orientation,
    pin,
    planar,
    screw,
    slider,
    spherical_coords,
    translation,
    universal,
    weld,
)


@numba.njit(cache=True, forceinline=True)
def x_fm(code, q, prm, R_FM, p_FM):
    """The transform X_FM of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.x_fm(q, prm, R_FM, p_FM)
    elif code == weld.CODE:
        weld.x_fm(q, prm, R_FM, p_FM)
    elif code == slider.CODE:
        slider.x_fm(q, prm, R_FM, p_FM)
    elif code == universal.CODE:
        universal.x_fm(q, prm, R_FM, p_FM)
    elif code == cylinder.CODE:
        cylinder.x_fm(q, prm, R_FM, p_FM)
    elif code == screw.CODE:
        screw.x_fm(q, prm, R_FM, p_FM)
    elif code == planar.CODE:
        planar.x_fm(q, prm, R_FM, p_FM)
    elif code == gimbal.CODE:
        gimbal.x_fm(q, prm, R_FM, p_FM)
    elif code == ball.CODE:
        ball.x_fm(q, prm, R_FM, p_FM)
    elif code == free.CODE:
        free.x_fm(q, prm, R_FM, p_FM)
    elif code == translation.CODE:
        translation.x_fm(q, prm, R_FM, p_FM)
    elif code == bend_stretch.CODE:
        bend_stretch.x_fm(q, prm, R_FM, p_FM)
    elif code == spherical_coords.CODE:
        spherical_coords.x_fm(q, prm, R_FM, p_FM)
    elif code == line_orientation.CODE:
        line_orientation.x_fm(q, prm, R_FM, p_FM)
    elif code == free_line.CODE:
        free_line.x_fm(q, prm, R_FM, p_FM)
    elif code == ellipsoid.CODE:
        ellipsoid.x_fm(q, prm, R_FM, p_FM)
    elif code == bushing.CODE:
        bushing.x_fm(q, prm, R_FM, p_FM)
    elif code == custom.CODE:
        custom.x_fm(q, prm, R_FM, p_FM)

@numba.njit(cache=True, forceinline=True)
def h_fm(code, q, prm, H):
    """The hinge matrix H_FM (in F) of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.h_fm(q, prm, H)
    elif code == weld.CODE:
        weld.h_fm(q, prm, H)
    elif code == slider.CODE:
        slider.h_fm(q, prm, H)
    elif code == universal.CODE:
        universal.h_fm(q, prm, H)
    elif code == cylinder.CODE:
        cylinder.h_fm(q, prm, H)
    elif code == screw.CODE:
        screw.h_fm(q, prm, H)
    elif code == planar.CODE:
        planar.h_fm(q, prm, H)
    elif code == gimbal.CODE:
        gimbal.h_fm(q, prm, H)
    elif code == ball.CODE:
        ball.h_fm(q, prm, H)
    elif code == free.CODE:
        free.h_fm(q, prm, H)
    elif code == translation.CODE:
        translation.h_fm(q, prm, H)
    elif code == bend_stretch.CODE:
        bend_stretch.h_fm(q, prm, H)
    elif code == spherical_coords.CODE:
        spherical_coords.h_fm(q, prm, H)
    elif code == line_orientation.CODE:
        line_orientation.h_fm(q, prm, H)
    elif code == free_line.CODE:
        free_line.h_fm(q, prm, H)
    elif code == ellipsoid.CODE:
        ellipsoid.h_fm(q, prm, H)
    elif code == bushing.CODE:
        bushing.h_fm(q, prm, H)
    elif code == custom.CODE:
        custom.h_fm(q, prm, H)

@numba.njit(cache=True, forceinline=True)
def hdot_u(code, q, u, prm, out):
    """(dH_FM/dt) u (in F) of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.hdot_u(q, u, prm, out)
    elif code == weld.CODE:
        weld.hdot_u(q, u, prm, out)
    elif code == slider.CODE:
        slider.hdot_u(q, u, prm, out)
    elif code == universal.CODE:
        universal.hdot_u(q, u, prm, out)
    elif code == cylinder.CODE:
        cylinder.hdot_u(q, u, prm, out)
    elif code == screw.CODE:
        screw.hdot_u(q, u, prm, out)
    elif code == planar.CODE:
        planar.hdot_u(q, u, prm, out)
    elif code == gimbal.CODE:
        gimbal.hdot_u(q, u, prm, out)
    elif code == ball.CODE:
        ball.hdot_u(q, u, prm, out)
    elif code == free.CODE:
        free.hdot_u(q, u, prm, out)
    elif code == translation.CODE:
        translation.hdot_u(q, u, prm, out)
    elif code == bend_stretch.CODE:
        bend_stretch.hdot_u(q, u, prm, out)
    elif code == spherical_coords.CODE:
        spherical_coords.hdot_u(q, u, prm, out)
    elif code == line_orientation.CODE:
        line_orientation.hdot_u(q, u, prm, out)
    elif code == free_line.CODE:
        free_line.hdot_u(q, u, prm, out)
    elif code == ellipsoid.CODE:
        ellipsoid.hdot_u(q, u, prm, out)
    elif code == bushing.CODE:
        bushing.hdot_u(q, u, prm, out)
    elif code == custom.CODE:
        custom.hdot_u(q, u, prm, out)

@numba.njit(cache=True, forceinline=True)
def n_mult(code, q, v, prm, out):
    """N(q) v of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.n_mult(q, v, prm, out)
    elif code == weld.CODE:
        weld.n_mult(q, v, prm, out)
    elif code == slider.CODE:
        slider.n_mult(q, v, prm, out)
    elif code == universal.CODE:
        universal.n_mult(q, v, prm, out)
    elif code == cylinder.CODE:
        cylinder.n_mult(q, v, prm, out)
    elif code == screw.CODE:
        screw.n_mult(q, v, prm, out)
    elif code == planar.CODE:
        planar.n_mult(q, v, prm, out)
    elif code == gimbal.CODE:
        gimbal.n_mult(q, v, prm, out)
    elif code == ball.CODE:
        ball.n_mult(q, v, prm, out)
    elif code == free.CODE:
        free.n_mult(q, v, prm, out)
    elif code == translation.CODE:
        translation.n_mult(q, v, prm, out)
    elif code == bend_stretch.CODE:
        bend_stretch.n_mult(q, v, prm, out)
    elif code == spherical_coords.CODE:
        spherical_coords.n_mult(q, v, prm, out)
    elif code == line_orientation.CODE:
        line_orientation.n_mult(q, v, prm, out)
    elif code == free_line.CODE:
        free_line.n_mult(q, v, prm, out)
    elif code == ellipsoid.CODE:
        ellipsoid.n_mult(q, v, prm, out)
    elif code == bushing.CODE:
        bushing.n_mult(q, v, prm, out)
    elif code == custom.CODE:
        custom.n_mult(q, v, prm, out)

@numba.njit(cache=True, forceinline=True)
def n_inv_mult(code, q, v, prm, out):
    """N(q)⁻¹ v of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.n_inv_mult(q, v, prm, out)
    elif code == weld.CODE:
        weld.n_inv_mult(q, v, prm, out)
    elif code == slider.CODE:
        slider.n_inv_mult(q, v, prm, out)
    elif code == universal.CODE:
        universal.n_inv_mult(q, v, prm, out)
    elif code == cylinder.CODE:
        cylinder.n_inv_mult(q, v, prm, out)
    elif code == screw.CODE:
        screw.n_inv_mult(q, v, prm, out)
    elif code == planar.CODE:
        planar.n_inv_mult(q, v, prm, out)
    elif code == gimbal.CODE:
        gimbal.n_inv_mult(q, v, prm, out)
    elif code == ball.CODE:
        ball.n_inv_mult(q, v, prm, out)
    elif code == free.CODE:
        free.n_inv_mult(q, v, prm, out)
    elif code == translation.CODE:
        translation.n_inv_mult(q, v, prm, out)
    elif code == bend_stretch.CODE:
        bend_stretch.n_inv_mult(q, v, prm, out)
    elif code == spherical_coords.CODE:
        spherical_coords.n_inv_mult(q, v, prm, out)
    elif code == line_orientation.CODE:
        line_orientation.n_inv_mult(q, v, prm, out)
    elif code == free_line.CODE:
        free_line.n_inv_mult(q, v, prm, out)
    elif code == ellipsoid.CODE:
        ellipsoid.n_inv_mult(q, v, prm, out)
    elif code == bushing.CODE:
        bushing.n_inv_mult(q, v, prm, out)
    elif code == custom.CODE:
        custom.n_inv_mult(q, v, prm, out)

@numba.njit(cache=True, forceinline=True)
def ndot_u(code, q, u, prm, out):
    """(dN/dt) u of a mobilizer of type ``code``."""
    if code == pin.CODE:
        pin.ndot_u(q, u, prm, out)
    elif code == weld.CODE:
        weld.ndot_u(q, u, prm, out)
    elif code == slider.CODE:
        slider.ndot_u(q, u, prm, out)
    elif code == universal.CODE:
        universal.ndot_u(q, u, prm, out)
    elif code == cylinder.CODE:
        cylinder.ndot_u(q, u, prm, out)
    elif code == screw.CODE:
        screw.ndot_u(q, u, prm, out)
    elif code == planar.CODE:
        planar.ndot_u(q, u, prm, out)
    elif code == gimbal.CODE:
        gimbal.ndot_u(q, u, prm, out)
    elif code == ball.CODE:
        ball.ndot_u(q, u, prm, out)
    elif code == free.CODE:
        free.ndot_u(q, u, prm, out)
    elif code == translation.CODE:
        translation.ndot_u(q, u, prm, out)
    elif code == bend_stretch.CODE:
        bend_stretch.ndot_u(q, u, prm, out)
    elif code == spherical_coords.CODE:
        spherical_coords.ndot_u(q, u, prm, out)
    elif code == line_orientation.CODE:
        line_orientation.ndot_u(q, u, prm, out)
    elif code == free_line.CODE:
        free_line.ndot_u(q, u, prm, out)
    elif code == ellipsoid.CODE:
        ellipsoid.ndot_u(q, u, prm, out)
    elif code == bushing.CODE:
        bushing.ndot_u(q, u, prm, out)
    elif code == custom.CODE:
        custom.ndot_u(q, u, prm, out)
