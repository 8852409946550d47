"""The reel-tuning workbench: ipywidgets controls over the exact engine.

:class:`ReelTuner` holds all the logic of ``notebooks/reel_tuning.ipynb``
so that it runs (and is tested) without a browser: set a control's value,
click a button, read the figures, the diff or the status.

* Pick a game (``data/games`` or a path), reel set and bet level.
* One integer control per symbol and reel (unweighted strips: the count;
  weighted strips: one per stop, its weight).  Counts are laid out on the
  saved strips by :func:`slotmath.tuning.layout.lay_out`, exactly as the solver
  lays them out.
* After every change the exact figures of the laid-out strips are shown
  beside the saved ones: RTP, hit frequency, SD, VI (90 %), feature
  frequency (a feature round: each feature's odds, ``1 in N``) and the RTP
  components, with a plot of the RTP, hit frequency
  and VI over the changes.  They come from the fast exact sources only
  (:data:`slotmath.analysis.metrics.LIVE_FIGURES`): the rules' ``figures``
  when they are fast (:attr:`slotmath.rules.contract.Rules.fast_figures`;
  for line games the contraction and the exact moments,
  :mod:`slotmath.engine.moments`; for a feature round its exact RTP and
  components and the round's moments, without its distribution,
  :func:`slotmath.rules.figures.round_figures`).  A game without them shows its figures
  "on request"; "Full figures" computes every figure (the joint
  distribution of a line game, with its max win, or ``par()``) for the
  current and the saved strips.  Unticking "live" keeps only the RTP and
  feature frequency live ("Refresh" brings the rest up to date).
* "Solve to target" runs :func:`slotmath.tuning.tune.tune` from the current
  values; "Revert" returns to the saved file; "Save" validates and writes
  the game file atomically, keeping a backup (:mod:`slotmath.io.gamewriter`).
* The diff against the saved file (the game file's lines and a table of
  what moved) is always on screen.

``timings`` records, for the last change, the milliseconds spent on the
figures, the plot and in total (see ``benchmarks/bench_tuning.py``).
"""

from __future__ import annotations

import html
import io
import re
import time
from fractions import Fraction
from pathlib import Path

import ipywidgets as W
import numpy as np

from slotmath.analysis.metrics import (
    DISTRIBUTION_FIGURES,
    LIVE_FIGURES,
    fast_figures,
    full_figures,
    game_figures,
)
from slotmath.engine.lines import pay_table_key
from slotmath.errors import SlotmathError
from slotmath.io.gamefile import GAMES_DIR, GameFileError, load_game
from slotmath.io.gamewriter import diff as file_diff
from slotmath.io.gamewriter import write_game
from slotmath.report.figure_sections import SHOWN_TOP
from slotmath.tuning.reelspace import Bounds, ReelSpace
from slotmath.tuning.tune import DEFAULT_TOLERANCE, Targets, tune

SHOWN = ("rtp", "hit_frequency", "sd", "vi", "feature_frequency", "max_win")
LABELS = {
    "rtp": "RTP",
    "hit_frequency": "hit frequency",
    "sd": "SD [x total bet]",
    "vi": "VI 90 % [x total bet]",
    "feature_frequency": "feature frequency",
    # the top of the distribution the figures come from (float laws drop points
    # below 1e-15, and a round cap or unbounded free games make the true
    # maximum another figure): worded as the PAR sheet words it
    "max_win": f"{SHOWN_TOP} [x total bet]",
}
ON_REQUEST = "on request"
PLOT_WIDTH = 760  # [CSS px] the plot's width on the page ...
PLOT_DPI = 2 * 96  # ... drawn at twice the pixels (crisp on retina screens)


def available_games(games_dir: Path | None = None) -> list:
    """Names of the game folders in ``data/games`` that hold a game file."""
    base = Path(games_dir or GAMES_DIR)
    return sorted(p.name for p in base.iterdir() if (p / "game.yaml").is_file()) if base.is_dir() else []


def css_name(text: str) -> str:
    """A CSS class fragment for a unit label (``stop 3 BAR`` -> ``stop-3-BAR``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")


#: a feature's trigger probability among the figures (``feature:<name>`` + this) [probability]
TRIGGER = ".trigger_probability"
#: a rules module's own odds figure (``lockit_one_in``) [rounds]
ONE_IN = "_one_in"


def odds_figures(figs: dict) -> list:
    """Names of the figures that give each feature's odds: every feature's
    trigger probability (``feature:<name>.trigger_probability``) and a rules
    module's own ``<name>_one_in`` figures, sorted."""
    return sorted(
        k
        for k in figs
        if (k.startswith("feature:") and k.endswith(TRIGGER)) or (k.endswith(ONE_IN) and ":" not in k)
    )


def odds_label(name: str) -> str:
    """``feature:hold_and_spin.trigger_probability`` -> ``hold and spin odds``."""
    base = name.removeprefix("feature:").removesuffix(TRIGGER).removesuffix(ONE_IN)
    return f"{base.replace('_', ' ')} odds"


def _is_probability(name: str) -> bool:
    return name.startswith("rtp") or name.endswith("frequency") or name.endswith(TRIGGER)


def format_figure(name: str, value) -> str:
    if value is None:
        return "n/a"
    v = float(value)
    if name.endswith(TRIGGER):
        return f"1 in {1 / v:,.2f} ({v:.4%})" if v else "never"
    if name.endswith(ONE_IN):
        return f"1 in {v:,.2f}"
    if _is_probability(name):
        return f"{v:.6%}"
    return f"{v:.6g}"


def format_change(name: str, new, old) -> str:
    if new is None or old is None:
        return ""
    d = float(new) - float(old)
    if _is_probability(name):
        return f"{d * 100:+.6f} pp"
    return f"{d:+.6g}"


class ReelTuner:
    """Interactive, exact reel tuning (see the module notes).

    Parameters
    ----------
    game : str, Path or Game, optional
        The game (default: the first game in ``data/games``).
    reel_set : str
    level : int, optional
        Bet level (default: the lowest).
    target_rtp : float, optional
        Initial target for "Solve to target" (default: the saved RTP).
    plot : bool
        Draw the history plot after each change.
    live_distribution : bool
        Recompute hit frequency, SD and VI on every change (else only with
        "Refresh"); RTP and feature frequency are always live (when the game
        has a fast source of figures, else everything is on request).
    bounds : Bounds, optional
        Limits for "Solve to target".
    background : bool
        Run "Solve to target" in a thread (the notebook does), so that its
        progress is shown and "Cancel" is heard; headless use runs it in line.
    """

    def __init__(
        self,
        game=None,
        reel_set: str = "base",
        level: int | None = None,
        target_rtp: float | None = None,
        plot: bool = True,
        live_distribution: bool = True,
        bounds: Bounds | None = None,
        games_dir: Path | None = None,
        background: bool = False,
    ):
        self.games_dir = games_dir
        self.background = background
        self._cancel = False
        self._thread = None
        self.bounds = bounds
        self.plot_enabled = plot
        self.timings: dict = {}
        self.history: list = []
        self._silent = False
        names = available_games(games_dir)
        if game is None:
            if not names:
                raise GameFileError(GAMES_DIR, "", "no game in data/games; pass a game path")
            game = names[0]
        self.game = game if not isinstance(game, (str, Path)) else load_game(game, games_dir)
        options = list(names)
        self._custom = None
        home = Path(games_dir or GAMES_DIR).resolve()
        if self.game.name not in names or Path(self.game.source).resolve().parent.parent != home:
            self._custom = self.game.source
            options = [self.game.source] + options
        # ------------------------------------------------------------ widgets
        self.game_picker = W.Dropdown(
            options=options, value=self._custom or self.game.name, description="game"
        )
        self.game_picker.add_class("slotmath-game")
        self.reel_set_picker = W.Dropdown(description="reel set")
        self.level_picker = W.Dropdown(description="bet level")
        self.live_box = W.Checkbox(
            value=live_distribution, description="live hit frequency / SD / VI", indent=False
        )
        self.refresh_button = W.Button(description="Refresh")
        self.full_button = W.Button(
            description="Full figures", tooltip="every figure, from the full analysis (may take long)"
        )
        self.figures_html = W.HTML()
        self.figures_html.add_class("slotmath-figures")
        self.plot_image = W.Image(
            format="png", layout=W.Layout(width="100%", max_width=f"{PLOT_WIDTH}px", height="auto")
        )
        self.plot_image.add_class("slotmath-plot")
        wide = {"description_width": "initial"}  # labels whole, never cut
        self.target_rtp = W.BoundedFloatText(
            description="target RTP %",
            min=0.0,
            max=1000.0,
            step=0.0001,
            layout=W.Layout(width="220px"),
            style=wide,
        )
        self.target_rtp.add_class("slotmath-target-rtp")
        self.tolerance = W.BoundedFloatText(
            value=DEFAULT_TOLERANCE * 100,
            min=0.0,
            max=10.0,
            step=0.001,
            description="+- pp",
            layout=W.Layout(width="160px"),
            style=wide,
        )
        self.hf_band = W.Text(
            value="",
            placeholder="e.g. 30:34",
            description="hit freq. %",
            layout=W.Layout(width="220px"),
            style=wide,
        )
        self.vi_band = W.Text(
            value="", placeholder="e.g. 5:8", description="VI", layout=W.Layout(width="160px"), style=wide
        )
        self.solve_button = W.Button(description="Solve to target", button_style="primary")
        self.cancel_button = W.Button(description="Cancel", disabled=True)
        self.cancel_button.add_class("slotmath-cancel")
        self.shape_box = W.Checkbox(
            value=True,
            description="keep the game's shape",
            indent=False,
            tooltip="stop weights within x2, symbol shares +-50 %, RTP component "
            "shares +-25 % (docs/tuning.md)",
        )
        self.shape_box.add_class("slotmath-keep-shape")
        self.progress_bar = W.IntProgress(
            value=0, min=0, max=400, description="solver", layout=W.Layout(width="300px", visibility="hidden")
        )
        self.progress_text = W.HTML()
        self.progress_text.add_class("slotmath-progress")
        self.sensitivity_button = W.Button(
            description="Sensitivities", tooltip="exact RTP change for +-1 of each symbol / stop weight"
        )
        self.sensitivity_button.add_class("slotmath-sensitivity-button")
        self.sensitivity_html = W.HTML()
        self.sensitivity_html.add_class("slotmath-sensitivities")
        self.revert_button = W.Button(description="Revert to saved")
        self.save_button = W.Button(description="Save", button_style="warning")
        for b, name in (
            (self.solve_button, "solve"),
            (self.revert_button, "revert"),
            (self.save_button, "save"),
        ):
            b.add_class(f"slotmath-{name}")
        self.status = W.HTML()
        self.status.add_class("slotmath-status")
        self.diff_html = W.HTML()
        self.diff_html.add_class("slotmath-diff")
        self.reels_box = W.HBox()
        self.controls: dict = {}
        # ------------------------------------------------------------ events
        self.game_picker.observe(self._on_game, names="value")
        self.reel_set_picker.observe(self._on_reel_set, names="value")
        self.level_picker.observe(self._on_level, names="value")
        self.live_box.observe(lambda ch: self.update(), names="value")
        self.target_rtp.observe(self._on_target, names="value")
        self.refresh_button.on_click(lambda b: self.update(refresh=True))
        self.full_button.on_click(lambda b: self.full_figures())
        self.solve_button.on_click(lambda b: self.solve())
        self.cancel_button.on_click(lambda b: self.cancel())
        self.sensitivity_button.on_click(lambda b: self.show_sensitivities())
        self.revert_button.on_click(lambda b: self.revert())
        self.save_button.on_click(lambda b: self.save())
        self.widget = W.VBox(
            [
                W.HBox([self.game_picker, self.reel_set_picker, self.level_picker]),
                W.HTML("<b>Symbol counts per reel</b> (weighted reels: stop weights)"),
                self.reels_box,
                W.HBox([self.live_box, self.refresh_button, self.full_button]),
                self.figures_html,
                self.plot_image,
                W.HBox([self.target_rtp, self.tolerance, self.hf_band, self.vi_band, self.shape_box]),
                W.HBox([self.solve_button, self.cancel_button, self.revert_button, self.save_button]),
                W.HBox([self.progress_bar, self.progress_text]),
                self.status,
                W.HTML("<b>Change against the saved file</b>"),
                self.diff_html,
            ]
        )
        self.widget.add_class("slotmath-reel-tuner")
        self.sensitivity_widget = W.VBox([self.sensitivity_button, self.sensitivity_html])
        self._load(self.game, reel_set, level, target_rtp)

    # ================================================================ state
    def _load(self, game, reel_set="base", level=None, target_rtp=None):
        self.game = game
        self.fast = fast_figures(game)
        self._silent = True
        try:
            self.reel_set_picker.options = list(game.reel_sets)
            self.reel_set_picker.value = reel_set if reel_set in game.reel_sets else "base"
            self.level_picker.options = game.levels
            self.level_picker.value = game.bet(level).level
        finally:
            self._silent = False
        self._rebuild(target_rtp)

    def _rebuild(self, target_rtp=None, keep_targets=False):
        """Everything that belongs to the game, reel set and level afresh:
        controls, saved figures, history, diff, sensitivities and (unless
        ``keep_targets``, as after a save) the targets, from the new figures."""
        self.reel_set = self.reel_set_picker.value
        self.level = self.level_picker.value
        self.space = ReelSpace(self.game, self.reel_set, self.bounds)
        self.xs = self.space.x0
        refusal = None
        try:
            self.saved_figures = self._figures(self.game, "live")
        except SlotmathError as exc:  # a game whose figures the engine refuses: say why, keep the session
            self.saved_figures, refusal = {}, str(exc)
        self.history = []
        self.last_result = None
        self.sensitivity_html.value = "<i>press Sensitivities for the table of the current strips</i>"
        if target_rtp is not None:
            self.target_rtp.value = float(target_rtp) * 100
        elif not keep_targets:
            self.target_rtp.value = (
                round(float(self.saved_figures["rtp"]) * 100, 4) if "rtp" in self.saved_figures else 0.0
            )
            self.hf_band.value = self.vi_band.value = ""
        self._build_controls()
        self.update(refresh=True)
        if refusal is not None:
            self._say(f"cannot evaluate: {html.escape(refusal)}", error=True)
            return
        figs = getattr(self, "figures", {})
        shown = {"feature_frequency"} if odds_figures(figs) else set()  # each feature's odds instead
        missing = sorted(LIVE_FIGURES - set(figs) - shown)
        if not self.fast:
            self._say(
                "this game's rules give no fast figures: its figures are "
                "on request (press Full figures; it runs the full analysis)"
            )
        elif missing:
            self._say(
                f"{', '.join(LABELS[m] for m in missing)}: on request (this game's fast "
                "figures do not include them; press Full figures)"
            )

    def _build_controls(self):
        self.controls = {}
        columns = []
        for rv in self.space.reels:
            items = [W.HTML(f"<b>reel {rv.reel + 1}</b>")]
            for u, label in enumerate(rv.labels):
                if rv.mode == "counts" and rv.x0[u] == 0 and rv.hi[u] == 0:
                    # a symbol this reel does not carry: an empty row of the
                    # same height keeps each symbol on the same row on every reel
                    gap = W.HTML("", layout=W.Layout(width="190px", height="28px", margin="2px"))
                    gap.add_class("slotmath-count-absent")
                    items.append(gap)
                    continue
                box = W.BoundedIntText(
                    value=int(rv.x0[u]),
                    min=0,
                    max=100000,
                    description=label,
                    layout=W.Layout(width="190px", height="28px", margin="2px"),
                    style={"description_width": "110px"},
                )
                box.add_class(f"slotmath-count-r{rv.reel + 1}-{css_name(label)}")
                box.observe(self._on_count, names="value")
                box._slotmath_unit = (rv.reel, u)
                self.controls[(rv.reel + 1, label)] = box
                items.append(box)
            length = W.HTML()
            length.add_class(f"slotmath-length-r{rv.reel + 1}")
            items.append(length)
            columns.append(W.VBox(items))
        self.reels_box.children = columns

    def control(self, reel: int, unit: str) -> W.BoundedIntText:
        """The control of ``unit`` (a symbol, or ``stop k SYMBOL``) on reel ``reel`` (1-based)."""
        return self.controls[(reel, unit)]

    @property
    def current_game(self):
        """The game with the laid-out strips of the current values."""
        return self.space.game_for(self.xs)

    def _figures(self, game, mode: str) -> dict:
        """Figures of ``game``: ``"full"`` every figure (``par()`` or the joint
        distribution); ``"live"`` the live figures from a fast source;
        ``"rtp"`` RTP and feature frequency only.  Without a fast source
        nothing but ``"full"`` computes anything (``{}``)."""
        if mode == "full":  # the saved and current strips may be the same: once
            key = (
                game.source,
                game.name,
                self.level,
                self.reel_set,
                pay_table_key(game, self.level),
                tuple(game.strips(name) for name in sorted(game.reel_sets)),
            )
            if getattr(self, "_full_key", None) != key:
                self._full = full_figures(game, self.level, self.reel_set)
                self._full_key = key
            return dict(self._full)
        if not self.fast:
            return {}
        needed = LIVE_FIGURES if mode == "live" else {"rtp", "feature_frequency"}
        figs = game_figures(game, self.level, self.reel_set, needed)
        if not odds_figures(figs):  # a feature round gives each feature's odds instead
            figs.setdefault("feature_frequency", None)  # e.g. a line game without scatter pays: n/a
        return figs

    # ================================================================ events
    def _on_game(self, change):
        if self._silent:
            return
        spec = change["new"]
        try:
            game = load_game(spec, self.games_dir)
        except GameFileError as exc:
            self._say(f"cannot load {html.escape(str(spec))}: {html.escape(str(exc))}", error=True)
            return
        self._load(game)

    def _on_reel_set(self, change):
        if not self._silent:
            self._rebuild()

    def _on_level(self, change):
        if not self._silent:
            self._rebuild()

    def _on_count(self, change):
        if self._silent:
            return
        r, u = change["owner"]._slotmath_unit
        self.xs[r][u] = int(change["new"])
        self.update()

    # ================================================================ actions
    def set_values(self, xs) -> None:
        """Set every control at once (one update)."""
        self._silent = True
        try:
            self.xs = [np.asarray(x, dtype=np.int64).copy() for x in xs]
            for box in self.controls.values():
                r, u = box._slotmath_unit
                box.value = int(self.xs[r][u])
        finally:
            self._silent = False
        self.update()

    def update(self, refresh: bool = False, full: bool = False) -> None:
        """Recompute the exact figures of the current values and refresh the display.

        ``refresh``: all live figures even when "live" is unticked; ``full``:
        every figure from the full analysis (see :meth:`full_figures`)."""
        t0 = time.perf_counter()
        if any(int(x.sum()) < 1 for x in self.xs):
            self._say("every reel needs at least one stop", error=True)
            return
        mode = "full" if full else "live" if (refresh or self.live_box.value) else "rtp"
        try:
            game = self.current_game
            figs = self._figures(game, mode)
        except Exception as exc:  # show, never lose the session
            self._say(f"cannot evaluate: {html.escape(str(exc))}", error=True)
            return
        if not figs:
            figs["_on_request"] = True
        elif mode == "rtp" and self.history:
            missing = [k for k in DISTRIBUTION_FIGURES if k not in figs]
            if missing:
                last = self.history[-1]
                figs.update({k: last[k] for k in missing if k in last})
                figs["_stale"] = True
        t1 = time.perf_counter()
        self.figures = figs
        self.history.append(figs)
        self.figures_html.value = self._figures_table(figs)
        self._show_lengths()
        t2 = time.perf_counter()
        if self.plot_enabled:
            self.plot_image.value = self._plot()
        t3 = time.perf_counter()
        self.diff_html.value = self._diff_html()
        t4 = time.perf_counter()
        self.timings = {
            "figures_ms": (t1 - t0) * 1e3,
            "plot_ms": (t3 - t2) * 1e3,
            "diff_ms": (t4 - t3) * 1e3,
            "total_ms": (t4 - t0) * 1e3,
        }

    def full_figures(self) -> None:
        """Every figure of the current strips (and of the saved ones, once)
        from the full analysis: ``par()``, or a line game's joint
        distribution (which adds the max win)."""
        self._say("computing the full figures ...")
        t0 = time.perf_counter()
        if "max_win" not in self.saved_figures:
            try:
                self.saved_figures = self._figures(self.game, "full")
            except Exception as exc:
                self._say(f"cannot evaluate: {html.escape(str(exc))}", error=True)
                return
        self.update(full=True)
        self._say(f"full figures in {time.perf_counter() - t0:.1f} s")

    def solve(self) -> None:
        """Run the solver from the current values to the targets in the boxes
        (in a thread with ``background``): the progress bar shows exact
        evaluations, best RTP and distance to the target; "Cancel" stops it
        and keeps the best candidate so far."""
        try:
            targets = self.targets()
        except ValueError as exc:
            self._say(html.escape(str(exc)), error=True)
            return
        if self._thread is not None and self._thread.is_alive():
            self._say("the solver is already running", error=True)
            return
        self._cancel = False
        self.solve_button.disabled, self.cancel_button.disabled = True, False
        self.progress_bar.value = 0
        self.progress_bar.layout.visibility = "visible"
        self.progress_text.value = "starting ..."
        self._say("solving ...")
        if self.background:
            import threading

            self._thread = threading.Thread(target=self._solve, args=(targets,), daemon=True)
            self._thread.start()
        else:
            self._solve(targets)

    def _on_target(self, change) -> None:
        """A new target RTP: the solver line says what "Solve to target" will aim
        at (left alone while the solver runs; it reads the targets when it starts)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self.progress_text.value = (
            f"target RTP {change.new:.4f} %: Solve to target starts from the current strips"
        )

    def cancel(self) -> None:
        """Stop a running solve (the best candidate so far is shown)."""
        self._cancel = True
        self.progress_text.value += " (cancelling ...)"

    def _progress(self, status: dict) -> None:
        self.progress_bar.value = min(status["evaluations"], self.progress_bar.max)
        best = (
            ""
            if status["best_rtp"] is None
            else (f", best RTP {status['best_rtp']:.6%}, {status['distance'] * 100:.4f} pp from target")
        )
        self.progress_text.value = (
            f"{status['evaluations']} exact evaluations, {status['seconds']:.1f} s{best}"
        )

    def _solve(self, targets) -> None:
        from dataclasses import replace

        from slotmath.tuning.targets import DEFAULT_COMPONENT_SHARE

        bounds = self.bounds or Bounds()
        if not self.shape_box.value:
            bounds = replace(bounds, weight_factor=None, symbol_share=None)
        try:
            res = tune(
                self.game,
                targets,
                bounds,
                self.reel_set,
                start=self.xs,
                progress=self._progress,
                cancel=lambda: self._cancel,
                component_share=DEFAULT_COMPONENT_SHARE if self.shape_box.value else None,
            )
        except Exception as exc:
            self._say(f"solver stopped: {html.escape(str(exc))}", error=True)
            return
        finally:
            self.solve_button.disabled, self.cancel_button.disabled = False, True
        self.last_result = res
        self.set_values(res.x_after)
        moved = int(res.moves["change"].abs().sum()) if len(res.moves) else 0
        verdict = "targets met" if res.feasible else "targets NOT met (best found shown)"
        stop = f" ({res.stopped})" if res.stopped else ""
        self._progress(
            {
                "evaluations": res.evaluations,
                "seconds": res.seconds,
                "best_rtp": float(res.after[self.level]["rtp"]),
                "distance": abs(float(res.after[self.level]["rtp"]) - float(targets.rtp)),
            }
        )
        self._say(
            f"{verdict}{stop}: {moved} units moved from the saved file, "
            f"{res.evaluations} exact evaluations, {res.seconds:.1f} s",
            error=not res.feasible,
        )

    def show_sensitivities(self) -> None:
        """The exact RTP change for +-1 of each symbol (stop weight) on each
        reel of the current strips, below the workbench."""
        from slotmath.tuning.sensitivity import sensitivities

        table = sensitivities(self.current_game, self.level, self.reel_set, figures=("rtp",))
        for col in ("rtp +1", "rtp -1"):
            table[col] = [f"{v * 100:+.4f} pp" if v == v else "" for v in table[col]]
        self.sensitivity_html.value = (
            f"<b>{html.escape(self.game.title)}</b>, bet {self.level}, "
            f"reel set {self.reel_set}" + table.to_html(index=False, classes="slotmath-sens")
        )

    def targets(self) -> Targets:
        """The targets in the boxes."""
        bands = {}
        for name, box, scale in (("hit_frequency", self.hf_band, 100.0), ("vi", self.vi_band, 1.0)):
            text = box.value.strip()
            if text:
                lo, _, hi = text.partition(":")
                try:
                    bands[name] = (
                        float(lo) / scale if lo.strip() else None,
                        float(hi) / scale if hi.strip() else None,
                    )
                except ValueError:
                    raise ValueError(f"{name} band: expected LO:HI, got {text!r}") from None
        return Targets(
            Fraction(str(self.target_rtp.value)) / 100,
            self.tolerance.value / 100,
            bands,
            levels=(self.level,),
        )

    def revert(self) -> None:
        """Back to the saved strips."""
        self.set_values(self.space.x0)
        self._say("reverted to the saved file")

    def save(self) -> Path | None:
        """Validate and write the game file (atomically, with a backup)."""
        strips = self.space.strips_for(self.xs)
        if strips == tuple(self.game.strips(self.reel_set)):
            self._say("nothing to save: the strips are as saved")
            return None
        try:
            path = write_game(self.game, {self.reel_set: strips})
        except GameFileError as exc:
            self._say(f"not saved: {html.escape(str(exc))}", error=True)
            return None
        game = load_game(path)
        self._silent = True
        try:
            self.game = game
        finally:
            self._silent = False
        self._rebuild(keep_targets=True)
        self._say(f"saved {html.escape(str(path))} (the previous file was kept as a .bak beside it)")
        return path

    # ================================================================ rendering
    def _say(self, message: str, error: bool = False) -> None:
        color = "#b00020" if error else "#1b5e20"
        self.status.value = f'<span style="color:{color}">{message}</span>'
        self.last_status = re.sub("<[^>]+>", "", message)

    def _figures_table(self, figs) -> str:
        odds = odds_figures({**self.saved_figures, **figs})
        names = list(SHOWN) + odds + sorted(k for k in figs if k.startswith("rtp:"))
        stale = figs.get("_stale")
        rows = []
        for name in names:
            if name not in figs and name not in self.saved_figures and name not in LIVE_FIGURES:
                continue  # live figures always have a row ("on request" if absent)
            if name == "feature_frequency" and odds and figs.get(name) is None:
                continue  # each feature's odds are shown instead
            cur, old = figs.get(name), self.saved_figures.get(name)
            mark = " (not refreshed)" if stale and name in DISTRIBUTION_FIGURES and name in figs else ""
            cls = "slotmath-rtp " if name == "rtp" else ""
            rows.append(
                f"<tr><td>{LABELS.get(name) or (odds_label(name) if name in odds else name)}</td>"
                f"<td>{self._cell(name, self.saved_figures)}</td>"
                f'<td><span class="{cls}slotmath-fig-{css_name(name)}">'
                f"{self._cell(name, figs)}</span>{mark}</td>"
                f"<td>{format_change(name, cur, old)}</td></tr>"
            )
        exact = figs.get("rtp")
        foot = (
            (f"<tr><td colspan=4><small>RTP exactly {exact.numerator}/{exact.denominator}</small></td></tr>")
            if isinstance(exact, Fraction)
            else ""
        )
        return (
            "<table style='white-space:nowrap'>"
            "<tr><th>figure</th><th>saved</th><th>now</th><th>change</th></tr>"
            + "".join(rows)
            + foot
            + "</table>"
        )

    @staticmethod
    def _cell(name, figs) -> str:
        """A figure as shown: "on request" when not computed ("n/a" when
        computed and undefined, e.g. no scatter pays)."""
        return format_figure(name, figs[name]) if name in figs else ON_REQUEST

    def _show_lengths(self):
        for rv, col in zip(self.space.reels, self.reels_box.children, strict=True):
            total = int(self.xs[rv.reel].sum())
            what = "stops" if rv.mode == "counts" else "total weight"
            col.children[-1].value = f"<small>{what}: {total} (saved {int(rv.x0.sum())})</small>"

    def _plot(self) -> bytes:
        """PNG of the RTP, hit frequency and VI over the changes so far.

        The figure is built once and only its data change afterwards (fast)."""
        if getattr(self, "_fig", None) is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(PLOT_WIDTH / 96, 2.8), dpi=PLOT_DPI)
            a1, a2 = fig.subplots(1, 2)
            a3 = a2.twinx()
            fig.subplots_adjust(left=0.09, right=0.92, bottom=0.14, top=0.88, wspace=0.4)
            self._fig = fig
            self._axes = (a1, a2, a3)
            self._lines = (
                a1.plot([], [], "o-", color="#1f77b4")[0],
                a2.plot([], [], "o-", color="#ff7f0e")[0],
                a3.plot([], [], "s--", color="#9467bd")[0],
            )
            self._band = None
            a1.set_title("RTP % after each change", fontsize=9)
            a2.set_title("hit frequency % (left), VI 90 % (right)", fontsize=9)
            from matplotlib.ticker import MaxNLocator

            for ax in (a1, a2, a3):  # few ticks: tick labels are most of the drawing time
                ax.tick_params(labelsize=7)
                ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
                ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
                ax.ticklabel_format(axis="y", useOffset=False, style="plain")  # no "+9.6e1"
        a1, a2, a3 = self._axes
        h = self.history
        k = np.arange(len(h))

        def series(name, scale):
            return [float(f[name]) * scale if f.get(name) is not None else np.nan for f in h]

        for line, values in zip(
            self._lines, (series("rtp", 100), series("hit_frequency", 100), series("vi", 1)), strict=True
        ):
            line.set_data(k, values)
        t, tol = self.target_rtp.value, self.tolerance.value
        if self._band is not None:
            self._band.remove()
        self._band = a1.axhspan(t - tol, t + tol, color="#2ca02c", alpha=0.3, lw=0)
        for ax in (a1, a2, a3):
            ax.relim()
            ax.autoscale_view()
            ax.set_xlim(-0.5, max(len(h) - 0.5, 0.5))
            if len(h) <= 6:  # whole change numbers only
                ax.set_xticks(range(len(h)))
            else:
                from matplotlib.ticker import MaxNLocator

                ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        buf = io.BytesIO()
        self._fig.savefig(buf, format="png")
        return buf.getvalue()

    def _diff_html(self) -> str:
        moves = self.space.moves(self.xs)
        if not len(moves):
            return "<i>no change: the strips are as saved</i>"
        strips = self.space.strips_for(self.xs)
        text = file_diff(self.game, {self.reel_set: strips})
        return (
            moves.to_html(index=False, classes="slotmath-moves")
            + f"<pre style='font-size:11px'>{html.escape(text)}</pre>"
        )

    # ================================================================ display
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def display(self):
        from IPython.display import display

        display(self.widget)
