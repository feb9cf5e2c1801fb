"""Everything that is neither UI nor SQL: domains, engines, the step core, scoring, data, export."""
