"""Look and feel: the Gradio theme and the stylesheet for renderer output and page chrome.

Renderers emit classes only (never inline `<style>`), so all visual decisions live here.
"""

from __future__ import annotations

import gradio as gr

CSS = """
.awp-obs { font-size: 13px; line-height: 1.45; max-height: 640px; overflow: auto; }
.awp-obs pre, .awp-diff-table td { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.awp-text, .awp-json, .awp-source, .awp-term { white-space: pre-wrap; word-break: break-word;
  margin: 0; padding: 10px 12px; border-radius: 8px; background: var(--background-fill-secondary); }
.awp-term { background: #111827; color: #e5e7eb; }
.awp-notice { background: #fef3c7; color: #78350f; border-left: 3px solid #f59e0b;
  padding: 6px 10px; margin-bottom: 6px; border-radius: 4px; font-size: 12px; }
.awp-inline-error { background: #fef2f2; color: #991b1b; border-left: 3px solid #dc2626;
  padding: 6px 10px; margin: 4px 0; border-radius: 4px; font-size: 13px; }
.awp-demo-ok { background: #f0fdf4; color: #14532d; border-left: 3px solid #16a34a;
  padding: 6px 10px; margin: 4px 0; border-radius: 4px; }
.awp-demo-pair, .awp-pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.awp-demo-pair pre { max-height: 260px; overflow: auto; }
.awp-demo-action { font-size: 13px; margin: 6px 0; }
.awp-source, .awp-demo-source { font-size: 12px; margin: 2px 0 4px;
  color: var(--body-text-color-subdued); }
.awp-item { border-top: 1px solid var(--border-color-primary); padding: 8px 0; }
.awp-session-head { font-size: 14px; margin-bottom: 6px; }
.awp-task { font-size: 13px; margin: 4px 0 8px; }
.awp-judge { font-size: 13px; margin: 6px 0; }
.awp-diff-rest > summary { cursor: pointer; font-size: 12px; padding: 4px 0;
  color: var(--link-text-color, #4f46e5); }
.awp-blurb { color: var(--body-text-color-subdued); }
.awp-empty { color: var(--body-text-color-subdued); font-style: italic; padding: 10px 4px; }
.awp-empty-plot { border: 1px dashed var(--border-color-primary); border-radius: 6px;
  padding: 14px 12px; display: flex; flex-direction: column; gap: 2px; }
.awp-empty-plot .awp-empty { padding: 0; }
.awp-task-line { margin: 2px 0; } .awp-task-line > summary { cursor: pointer; }
.awp-task-full { white-space: pre-wrap; max-height: 240px; overflow: auto; font-size: 13px;
  padding: 6px 8px; margin-top: 4px; background: var(--background-fill-secondary); }
.awp-bold { font-weight: 700; } .awp-dim { opacity: .65; } .awp-italic { font-style: italic; }
.awp-underline { text-decoration: underline; } .awp-inverse { background: #e5e7eb; color: #111827; }
.awp-fg0 { color: #4b5563; } .awp-fg1 { color: #f87171; } .awp-fg2 { color: #4ade80; }
.awp-fg3 { color: #facc15; } .awp-fg4 { color: #60a5fa; } .awp-fg5 { color: #e879f9; }
.awp-fg6 { color: #22d3ee; } .awp-fg7 { color: #e5e7eb; } .awp-fg8 { color: #9ca3af; }
.awp-fg9 { color: #fca5a5; } .awp-fg10 { color: #86efac; } .awp-fg11 { color: #fde047; }
.awp-fg12 { color: #93c5fd; } .awp-fg13 { color: #f0abfc; } .awp-fg14 { color: #67e8f9; }
.awp-fg15 { color: #ffffff; }
.awp-bg0 { background: #1f2937; } .awp-bg1 { background: #7f1d1d; }
.awp-bg2 { background: #14532d; } .awp-bg3 { background: #713f12; }
.awp-bg4 { background: #1e3a8a; } .awp-bg5 { background: #701a75; }
.awp-bg6 { background: #164e63; } .awp-bg7 { background: #d1d5db; color: #111827; }
.awp-json-key { color: #7c3aed; } .awp-json-string { color: #047857; }
.awp-json-number { color: #b45309; } .awp-json-literal { color: #2563eb; font-weight: 600; }
.awp-split { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; }
.awp-pane { overflow: auto; }
.awp-pane-title { font-size: 11px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); margin-bottom: 4px; }
.awp-frame { width: 100%; height: 420px; border: 1px solid var(--border-color-primary);
  border-radius: 8px; background: #fff; }
.awp-obs-android, .awp-obs-a11y_tree, .awp-obs-axtree { max-height: none; overflow: visible; }
.awp-treeview { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.awp-tree-scroll { flex: 1 1 340px; min-width: 0; max-height: 560px; overflow: auto;
  border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 4px 0; }
.awp-tree { font-family: ui-monospace, Menlo, monospace; font-size: 12px; }
.awp-node { padding: 1px 6px; border-radius: 3px; white-space: normal; overflow-wrap: anywhere; }
.awp-node:hover { background: var(--background-fill-secondary); }
.awp-id { color: #6b7280; } .awp-role { color: #7c3aed; font-weight: 600; }
.awp-name { color: #047857; } .awp-props { color: #6b7280; font-size: 11px; }
.awp-node.awp-added { background: #dcfce7; } .awp-node.awp-updated { background: #fef9c3; }
.awp-summary { font-size: 12px; margin: 4px 0 8px; color: var(--body-text-color-subdued); }
.awp-summary .awp-added { color: #15803d; font-weight: 600; }
.awp-summary .awp-updated { color: #a16207; font-weight: 600; }
.awp-screen-wrap { flex: 0 0 auto; max-width: 100%; min-width: 0; }
.awp-screen-portrait { width: 314px; }
.awp-screen-phone .awp-bezel { padding: 7px; background: #1f2937; border-radius: 24px; }
.awp-screen-landscape { flex: 1 1 100%; }
.awp-screen-landscape .awp-bezel { overflow-x: auto; }
.awp-screen { position: relative; width: 100%; overflow: hidden; background: #fff;
  color: #111827; font-family: ui-sans-serif, system-ui, sans-serif; }
.awp-screen-phone .awp-screen { border-radius: 16px; }
.awp-screen-desktop .awp-screen { border: 1px solid #94a3b8; border-radius: 4px; }
.awp-el { position: absolute; box-sizing: border-box; display: flex; align-items: center;
  border-radius: 3px; }
.awp-el-label { flex: none; overflow: hidden; padding: 0 2px; font-size: 11px; line-height: 13px; }
.awp-el-line { white-space: nowrap; text-overflow: ellipsis; min-width: 100%; width: max-content;
  max-width: var(--room, 100%); }
.awp-el-para { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: var(--lines);
  width: 100%; overflow-wrap: anywhere; }
.awp-el-image { background: #e2e8f0; }
.awp-el-added { background: rgba(34,197,94,.22); }
.awp-el-updated { background: rgba(234,179,8,.32); }
.awp-el-text { background: #fff; } .awp-el-text .awp-el-label { background: inherit; }
.awp-el-text.awp-el-added { background: #cef2dc; }
.awp-el-text.awp-el-updated { background: #f8e7b0; }
.awp-el-added, .awp-el-added-box { z-index: 1; }
.awp-el-added-box { box-shadow: inset 0 0 0 2px rgba(22,163,74,.6); }
.awp-el-updated-box { box-shadow: inset 0 0 0 2px rgba(202,138,4,.7); }
.awp-el-click { border: 1.5px solid #2563eb; }
.awp-el-focus { outline: 2px solid #ea580c; outline-offset: 1px; }
.awp-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; margin-top: 6px; font-size: 11px;
  color: var(--body-text-color-subdued); }
.awp-screen-portrait .awp-legend { justify-content: center; }
.awp-key::before { content: ""; display: inline-block; width: 12px; height: 10px; margin-right: 4px;
  vertical-align: -1px; border-radius: 2px; background: #fff; }
.awp-key-click::before { border: 1.5px solid #2563eb; }
.awp-key-focus::before { outline: 2px solid #ea580c; }
.awp-key-added::before { background: rgba(34,197,94,.45); }
.awp-key-updated::before { background: rgba(234,179,8,.55); }
.awp-cards { display: flex; flex-direction: column; gap: 8px; }
.awp-card { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 12px; }
.awp-card-title a { font-weight: 600; color: #1d4ed8; text-decoration: none; }
.awp-card-url { color: #15803d; font-size: 12px; word-break: break-all; }
.awp-date { color: #6b7280; margin-left: 6px; }
.awp-card-snippet { font-size: 13px; margin-top: 2px; }
.awp-diff-table { width: 100%; border-collapse: collapse; table-layout: fixed; font-size: 12px; }
.awp-diff-table th { text-align: left; padding: 4px 6px; border: none; }
.awp-diff-table col.awp-ln-col { width: 3.2em; } .awp-diff-table col.awp-side-col { width: 50%; }
.awp-diff-table td { padding: 1px 6px; vertical-align: top; white-space: pre-wrap;
  word-break: break-word; border: none; }
.awp-diff-table td.awp-ln { width: 3em; color: #9ca3af; text-align: right; user-select: none; }
.awp-d-fold td { color: #6b7280; background: var(--background-fill-secondary); font-style: italic;
  text-align: center; }
.awp-d-chg .awp-dl, .awp-d-del .awp-dl { background: #fee2e2; }
.awp-d-chg .awp-dr, .awp-d-add .awp-dr { background: #dcfce7; }
.awp-d-chg .awp-dl mark { background: #fca5a5; } .awp-d-chg .awp-dr mark { background: #86efac; }
.awp-status { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-size: 12px; }
.awp-chip { background: var(--background-fill-secondary); border-radius: 999px; padding: 2px 10px; }
.awp-chip b { color: var(--body-text-color-subdued); font-weight: 500; margin-right: 2px; }
.awp-grounding summary { cursor: pointer; list-style: none; }
.awp-grounding summary::-webkit-details-marker { display: none; }
.awp-grounding summary .awp-chip::after { content: " ▸"; }
.awp-grounding[open] summary .awp-chip::after { content: " ▾"; }
.awp-grounding[open] { flex-basis: 100%; }
.awp-grounding ol { margin: 4px 0 2px 22px; padding: 0; }
.awp-chip-warn { background: #fef3c7; } .awp-chip-bad { background: #fee2e2; }
.awp-chip-good { background: #dcfce7; }
.awp-live { margin: 4px 0; font-size: 14px; }
.awp-shot { margin: 8px 0 0; } .awp-shot img { max-width: 100%; border: 1px solid
  var(--border-color-primary); border-radius: 4px; image-rendering: auto; }
.awp-shot figcaption { font-size: 12px; color: var(--body-text-color-subdued); }
.awp-note { color: var(--body-text-color-subdued); margin-left: 6px; }
.awp-reveal { padding: 8px 12px; border-radius: 8px; margin: 6px 0;
  background: var(--background-fill-secondary); border-left: 4px solid #9ca3af; }
.awp-reveal-good { border-left-color: #16a34a; } .awp-reveal-bad { border-left-color: #dc2626; }
.awp-versus .awp-pane-title { font-size: 15px; font-weight: 700; color: inherit; }
.awp-table { border-collapse: collapse; font-size: 13px; width: 100%; }
.awp-table th, .awp-table td { padding: 4px 8px; text-align: left;
  border-bottom: 1px solid var(--border-color-primary); }
.awp-futures { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr));
  gap: 10px; }
.awp-score-block { display: flex; flex-direction: column; gap: 6px; font-size: 12px; }
.awp-headline { border: 1px solid var(--border-color-primary); border-radius: 8px;
  padding: 8px 12px; max-width: 560px; }
.awp-headline-top { display: flex; align-items: baseline; gap: 8px; }
.awp-headline-name { font-weight: 600; font-size: 14px; }
.awp-headline-tag { font-size: 10px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--body-text-color-subdued); }
.awp-headline-top b { margin-left: auto; font-size: 18px; }
.awp-headline .awp-bar { height: 10px; margin: 4px 0; }
.awp-headline-desc { color: var(--body-text-color-subdued); }
.awp-more summary { cursor: pointer; color: var(--body-text-color-subdued); margin-bottom: 4px; }
.awp-scores { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr));
  gap: 6px 16px; font-size: 12px; }
.awp-score { display: grid; grid-template-columns: 1fr 80px 36px; gap: 6px; align-items: center; }
.awp-bar { height: 8px; background: #e5e7eb; border: 1px solid #cbd5e1; border-radius: 4px;
  box-sizing: border-box; overflow: hidden; }
.awp-bar i { display: block; height: 100%; min-width: 3px; border-radius: 3px; }
.awp-good .awp-bar i, .awp-cell.awp-good { background: #22c55e; }
.awp-mid .awp-bar i, .awp-cell.awp-mid { background: #eab308; }
.awp-bad .awp-bar i, .awp-cell.awp-bad { background: #ef4444; }
.awp-strip { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; margin: 4px 0; }
.awp-strip-label { font-size: 12px; width: 140px; color: var(--body-text-color-subdued); }
.awp-cell { width: 24px; height: 22px; border-radius: 4px; font-size: 10px; color: #fff;
  display: inline-flex; align-items: center; justify-content: center; background: #cbd5e1; }
.awp-panel { min-height: 120px; }
.secondary-wrap:has(> .icon-wrap) > input { padding-right: 28px; text-overflow: ellipsis; }
#bm-results th, #bm-results th *, #ro-h-meter th, #ro-h-meter th * { overflow-wrap: normal;
  word-break: normal; }
.awp-header h1 { margin-bottom: 0; } .awp-header p { margin-top: 2px; }
@media (max-width: 900px) { .awp-split { grid-template-columns: 1fr; } }
"""


def theme() -> gr.themes.Base:
    """The app theme: Gradio's Soft theme in indigo with system fonts.

    System font stacks instead of the theme's Google fonts: a Space or an offline laptop should
    not depend on a third-party font server to render.
    """
    return gr.themes.Soft(
        primary_hue="indigo",
        secondary_hue="slate",
        font=["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "sans-serif"],
        font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "monospace"],
    )
