"""Empty plots say why they are empty; a long task shows its first sentence and folds the rest."""

from __future__ import annotations

import gradio as gr
import pandas as pd
from matplotlib.figure import Figure

from backend.compare.report import ArenaReport
from ui import plots
from ui.compare_views import board_chart
from ui.views import TASK_LEAD, empty_plot, task_html, task_lead


def test_an_empty_plot_names_the_chart_and_why_escaped():
    shown = empty_plot("Ratings", "No votes <yet>")
    assert "awp-empty-plot" in shown and "<b>Ratings</b>" in shown
    assert "No votes &lt;yet&gt;" in shown


def test_a_plot_slot_shows_the_chart_or_its_empty_state():
    with gr.Blocks():
        slot = plots.render(gr.Plot, "Ratings", "No votes yet.", elem_id="x-chart")
    assert slot.note.elem_id == "x-chart-empty" and not slot.plot.visible
    for nothing in (None, "", pd.DataFrame({"step": [], "loss": []})):
        empty = slot.show(nothing)
        assert empty[slot.plot]["visible"] is False
        assert empty[slot.note].visible and "No votes yet." in empty[slot.note].value
    why = slot.show(None, "This run stored no chart.")
    assert "This run stored no chart." in why[slot.note].value
    figure = Figure()
    drawn = slot.show(figure)
    assert drawn[slot.plot] == {"__type__": "update", "value": figure, "visible": True}
    assert drawn[slot.note].visible is False
    curve = pd.DataFrame({"step": [1], "loss": [0.5]})
    assert slot.show(curve)[slot.plot]["visible"] is True


def test_the_arena_chart_is_none_before_any_vote():
    assert board_chart(ArenaReport(real=[], leaderboards=[], judge_vs_people=[])) is None


def test_a_long_task_shows_its_first_sentence_and_folds_the_rest():
    task = (
        "Fix the crash in the parser. When the input ends with a backslash the tokenizer "
        "reads past the buffer.\n\nSteps to reproduce: run `parse('a\\\\')` " + "x" * 600
    )
    shown = task_html(task)
    assert shown.startswith("<details") and "Fix the crash in the parser." in shown
    summary = shown.split("</summary>")[0]
    assert "tokenizer" not in summary and "(full task)" in summary
    assert "Steps to reproduce" in shown.split("</summary>")[1]  # folded, not lost


def test_a_short_task_is_one_line_and_a_run_on_one_is_cut():
    assert task_html("Click the OK button.") == (
        '<div class="awp-caption awp-task-line"><b>Task</b> Click the OK button.</div>'
    )
    assert task_html("  ") == ""
    run_on = "word " * 100
    assert len(task_lead(run_on)) == TASK_LEAD and task_lead(run_on).endswith("…")
    assert "<details" in task_html(run_on)


def test_the_lead_skips_the_harness_preamble_and_names_the_issue():
    swe = (
        "We're currently solving the following issue within our repository. Here's the issue "
        "text:\nISSUE:\nTimeDelta serialization precision\nHi there!\n\nI just found..."
    )
    assert task_lead(swe) == "TimeDelta serialization precision"
    ctf = (
        "We're currently solving the following CTF challenge. The CTF challenge is a "
        'cryptography problem named "BabyEncryption", worth 10 points. The description is:\n...'
    )
    assert task_lead(ctf) == (
        'The CTF challenge is a cryptography problem named "BabyEncryption", worth 10 points.'
    )
