-- wfapi schema, version 11: the ANOMALY alert condition (contract section 7, "New alert conditions").
--
-- A rule of that condition watches one metric (EXECUTIONS, FAILURE_RATE or DURATION_P95) of one
-- workflow or of the organization as a whole, with the band's sensitivity (null: the default, 3).
-- It is evaluated on the timer like FAILURE_RATE and NO_EXECUTIONS, and keeps its state in the
-- same `firing` and `fired_at` columns. The timer's partial index (alert_rules_timed) is left as
-- it is: the rules of an installation are few, and the timer's claim reads them whole either way.
alter table alert_rules add column metric text, add column sensitivity numeric;
