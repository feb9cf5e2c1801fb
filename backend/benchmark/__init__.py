"""`awp bench`: engines over a dataset, scored, judged, stored per item, summarised per domain."""
