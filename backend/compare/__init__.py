"""Comparing world models with people and judges: blind tests, arena ratings, agreement.

Pure statistics and sampling (no SQL, no UI): `storage.arena` and `storage.agreement` aggregate
votes and ratings in SQL and hand counts here; pages and `awp arena` show the results.
"""
