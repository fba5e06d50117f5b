"""Table geometry: seat assignment, manual and automatic calibration, the stored table setup."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dokocam.vision.table.geometry import AutoCalibrator, CalibrationError, TableGeometry, TableSetup


def around(center, angle_deg, r):
    a = math.radians(angle_deg)
    return (center[0] + r * math.cos(a), center[1] + r * math.sin(a))


def test_default_geometry_puts_seat_0_at_the_bottom_and_runs_clockwise():
    g = TableGeometry.default(1280, 720)
    c = (640, 360)
    seats = [g.seat_of(around(c, a, 100)).seat for a in (90, 180, 270, 0)]
    assert seats == [0, 1, 2, 3]
    guess = g.seat_of(around(c, 90 + 44, 100))
    assert guess.seat == 0 and guess.margin == pytest.approx(2, abs=0.01)


def test_trick_area_excludes_the_table_edge():
    g = TableGeometry.default(1280, 720)
    inside = g.in_trick_area(np.array([[640, 420], [640, 710], [20, 360]]))
    assert inside.tolist() == [True, False, False]


def test_manual_calibration_from_centre_and_seat_0_direction():
    g = TableGeometry.from_seat_direction((600, 300), (600, 100), radius=200)  # seat 0 at the top
    assert g.method == "manual"
    assert g.seat_of((600, 250)).seat == 0
    assert g.seat_of((650, 300)).seat == 1  # clockwise from the top is the right
    assert g.seat_of((600, 350)).seat == 2
    with pytest.raises(CalibrationError):
        TableGeometry.from_seat_direction((1, 1), (1, 1), radius=10)


def test_four_corner_calibration_undoes_the_perspective():
    # A table seen obliquely: the far edge (seat 2) is shorter than the near one (seat 0).
    corners = [(1000, 650), (280, 650), (450, 150), (830, 150)]
    g = TableGeometry.from_corners(corners)
    assert g.to_plane((640, 650)) == pytest.approx((0, 1), abs=1e-6)
    assert g.to_plane((640, 150)) == pytest.approx((0, -1), abs=1e-6)
    assert g.seat_of((640, 560)).seat == 0
    assert g.seat_of((420, 400)).seat == 1
    assert g.seat_of((640, 230)).seat == 2
    with pytest.raises(CalibrationError, match="no area"):
        TableGeometry.from_corners([(0, 0), (1, 0), (2, 0), (3, 0)])


def test_five_places_skip_the_dealer():
    g = TableGeometry(center=(0, 0), places=5, vorhand=2, radius=10)
    # Engine seat 0 sits at place 2; the dealer (place 1) never plays.
    assert [g.place_of_seat(s) for s in range(4)] == [2, 3, 4, 0]
    assert g.seat_angle(0) == pytest.approx((90 + 2 * 72) % 360)


@pytest.mark.parametrize("seat0_angle,clockwise", [(90, True), (200, True), (-30, False)])
def test_auto_calibration_finds_centre_and_seat_directions(seat0_angle, clockwise):
    center = (700.0, 340.0)
    step = 90 if clockwise else -90
    trick = [(around(center, seat0_angle + step * s, 90 + 10 * s), s) for s in range(4)]
    base = TableGeometry.default(1280, 720)
    calibrator = AutoCalibrator()
    found = calibrator.update(base, trick)
    if not clockwise:
        # A mirrored view: one trick could be a trick with two seats swapped; a second one shows it.
        assert found is None
        found = calibrator.update(base, [(around(center, seat0_angle + step * s + 5, 95), s) for s in (2, 3, 0, 1)])
    assert found is not None and found.method == "auto" and found.clockwise is clockwise
    assert found.center == pytest.approx(center, abs=20)
    for s in range(4):
        assert found.seat_of(around(center, seat0_angle + step * s, 60)).seat == s


def test_a_loosely_fitting_trick_waits_for_a_second_one_that_agrees():
    center, seat0 = (640.0, 360.0), 90.0
    base = TableGeometry.default(1280, 720)
    calibrator = AutoCalibrator()
    # One card 35 degrees off its seat's direction (18 once the fit has moved with it): not alone.
    loose = [(around(center, seat0 + 90 * s + (35 if s == 1 else 0), 90), s) for s in range(4)]
    assert calibrator.update(base, loose) is None
    found = calibrator.update(base, [(around(center, seat0 + 90 * s + 5, 95), s) for s in (1, 2, 3, 0)])
    assert found is not None and found.seat_of(around(center, seat0 + 90, 60)).seat == 1
    # A tight trick decides alone, as before.
    tight = [(around(center, seat0 + 90 * s + (10 if s == 1 else 0), 90), s) for s in range(4)]
    assert AutoCalibrator().update(base, tight) is not None


def test_auto_calibration_waits_when_the_trick_does_not_make_it_clear():
    center = (640.0, 360.0)
    # All four cards piled on one side: no consistent seat directions.
    trick = [(around(center, 80 + 10 * s, 90), s) for s in range(4)]
    assert AutoCalibrator().update(TableGeometry.default(1280, 720), trick) is None


def test_auto_calibration_is_not_blocked_by_a_misread_first_trick():
    center, seat0 = (640.0, 360.0), 90.0
    calibrator = AutoCalibrator(min_tricks=2)
    base = TableGeometry.default(1280, 720)
    # Trick 1 as a tracker that missed the lead sees it: every seat shifted by one, so on its own
    # it points seat 0 a quarter turn off. Two later tricks, seen right, outvote it.
    shifted = [(around(center, seat0 + 90 * (s + 1), 100), s) for s in range(4)]
    right = [(around(center, seat0 + 90 * s + 8, 90 + 5 * s), s) for s in (2, 3, 0, 1)]
    assert calibrator.update(base, shifted) is None
    assert calibrator.update(base, right) is None  # one against one: not clear yet
    found = calibrator.update(base, [(around(center, seat0 + 90 * s - 6, 95), s) for s in (1, 2, 3, 0)])
    assert found is not None and found.clockwise
    for s in range(4):
        assert found.seat_of(around(center, seat0 + 90 * s, 60)).seat == s


def test_one_trick_with_two_seats_swapped_does_not_calibrate_a_mirrored_table():
    center, seat0 = (640.0, 360.0), 0.0
    # From a rendered game: both 9S of the first trick, Vorhand's seen only after seat 2's, so the
    # turn order gave each the other's place; on its own the trick fits a mirrored view.
    place = {0: 2, 1: 1, 2: 0, 3: 3}
    swapped = [(around(center, seat0 + 90 * place[s], 100), s) for s in range(4)]
    calibrator = AutoCalibrator()
    base = TableGeometry.default(1280, 720)
    assert calibrator.update(base, swapped) is None
    found = calibrator.update(base, [(around(center, seat0 + 90 * s + 7, 90), s) for s in (3, 0, 1, 2)])
    assert found is not None and found.clockwise
    assert found.seat_of(around(center, seat0, 60)).seat == 0


def test_the_table_setup_round_trips_through_json_and_bad_files_say_why(tmp_path):
    g = TableGeometry.from_corners([(1000, 650), (280, 650), (450, 150), (830, 150)])
    path = tmp_path / "table.json"
    TableSetup(g, ("Anna", "Ben", "Cem", "Dora")).save(path)
    back = TableSetup.load(path)
    assert back.players == ("Anna", "Ben", "Cem", "Dora")
    assert back.geometry.seat_of((420, 400)).seat == 1
    (tmp_path / "bad.json").write_text('{"geometry": {"center": [1]}}')
    with pytest.raises(CalibrationError, match="malformed"):
        TableSetup.load(tmp_path / "bad.json")
    with pytest.raises(CalibrationError, match="cannot read"):
        TableSetup.load(tmp_path / "missing.json")


def test_an_unsure_place_leaves_less_margin_and_none_when_it_may_lie_past_the_centre():
    g = TableGeometry.default(1280, 720)
    sure = g.seat_of((640, 500))  # straight towards seat 0: 90 degrees clear of the next seat
    unsure = g.seat_of((640, 500), spread=50)  # may lie up to 50 px off: about 20 degrees either way
    assert sure.seat == unsure.seat == 0
    assert sure.margin == pytest.approx(90)
    assert unsure.margin == pytest.approx(90 - 2 * math.degrees(math.asin(50 / 140)), abs=2)
    assert g.seat_of((640, 400), spread=45).margin == 0.0
