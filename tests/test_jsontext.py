"""The one JSON writer: strict JSON, a figure that is not a number as null."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.io.jsontext import json_text


def test_not_a_number_and_infinities_are_null():
    frame = pd.DataFrame([{"a": 1.0, "x": "1/2"}, {"a": 2.0, "x": None}])  # where(notna, None) keeps NaN
    data = {
        "nan": math.nan,
        "odds": [math.inf, -math.inf, np.float64("nan"), np.float64(0.25)],
        "rows": frame.where(frame.notna(), None).to_dict(orient="records"),
        "exact": Fraction(1, 4),
        "count": np.int64(3),
    }
    assert json.loads(json_text(data)) == {
        "nan": None,
        "odds": [None, None, None, 0.25],
        "rows": [{"a": 1.0, "x": "1/2"}, {"a": 2.0, "x": None}],
        "exact": 0.25,
        "count": 3,
    }
